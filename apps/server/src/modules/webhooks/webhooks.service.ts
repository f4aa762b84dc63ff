import type {
  CreateWebhookSubscriptionBodySchema,
  Paginated,
  PaginationQuery,
  UpdateWebhookSubscriptionBodySchema,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Handle, Tx } from '../../db/port.js';
import { disableSubscription, releaseTurns, type SubscriptionRow } from '../../delivery/queue-control.js';
import { generateSigningSecret } from '../../delivery/sign.js';
import { refusalReason } from '../../delivery/ssrf-guard.js';

import { type Clock, iso } from '../../lib/clock.js';
import { adjustCounter, readCounter } from '../../lib/counters.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import { type CursorCodec, keysetPage } from '../../lib/pagination.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { sealedCurrentSecret } from '../../secrets/subscription-secrets.js';
import * as repo from './webhooks.repo.js';

/** Dependencies of webhook subscription operations. */
export interface WebhooksDeps {
  /** The request's handle (a transaction's when the request runs in one). */
  db: Handle;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
  /** Seals signing secrets before they are stored. */
  secrets: SecretBox;
  config: Pick<Config, 'webhooks'>;
}

/** Counter scope of a tenant's live subscriptions. */
const SUBSCRIPTIONS_COUNTER = 'webhook_subscriptions';

/** How long the replaced secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Maps a stored subscription to the API shape; the secret is never part of it. */
export function toApiSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    webhookSubscriptionId: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    status: row.status,
    disabledReason: row.disabledReason,
    maxDeliveriesPerSecond: row.maxDeliveriesPerSecond,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Loads a tenant's live subscription or throws 404. */
export async function requireSubscription(
  db: Handle,
  tenantId: string,
  id: string,
  forUpdate = false,
): Promise<SubscriptionRow> {
  const row = await repo.findSubscription(db, tenantId, id, forUpdate);
  if (!row) throw new NotFoundError(`Webhook subscription ${id} not found.`);
  return row;
}

const isLoopbackHost = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || refusalReason(host) === 'loopback';

/**
 * Refuses receiver URLs that can never be delivered to: plain http (allowed only to loopback, and
 * only in insecure mode), credentials in the URL, and literal internal addresses. Host names are
 * checked again at every connection, because what they resolve to can change.
 */
function checkReceiverUrl(url: string, allowInsecure: boolean): void {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const fail = (message: string) => {
    throw ValidationError.of('body', message, ['url']);
  };
  if (parsed.username || parsed.password) fail('The url must not carry credentials.');
  if (parsed.protocol === 'http:') {
    if (!allowInsecure) fail('The url must use https.');
    if (!isLoopbackHost(host)) fail('Plain http is allowed only to loopback receivers (insecure mode).');
    return;
  }
  if (allowInsecure) return;
  if (host === 'localhost' || host.endsWith('.localhost')) fail('The url must not point at this machine.');
  const reason = refusalReason(host);
  if (reason && reason !== 'not an IP address') fail(`The url points at a ${reason} address.`);
}

/**
 * Refuses a tenant's subscription beyond `max` (409), like Stripe's endpoint limit: each one
 * multiplies every event into one more delivery, so the cap bounds the dispatcher work one change
 * can cause. The lock holds until the caller's transaction ends, so concurrent creates (from any
 * process) are counted one after another and never pass the cap together.
 */
async function requireRoomForOne(tx: Tx, tenantId: string, max: number): Promise<void> {
  await repo.lockTenantSubscriptions(tx, tenantId);
  const live = await repo.countLiveSubscriptions(tx, tenantId);
  if (live >= max) {
    throw new ConflictError(
      `Webhook subscription limit reached: the tenant already has ${live} subscriptions and ${max} are allowed. ` +
        'Delete one it no longer needs (DELETE /v0/webhook_subscriptions/{webhook_subscription_id}), then create this one again.',
    );
  }
}

/** Creates a subscription; the response carries the signing secret, the only time it is shown. */
export async function createWebhookSubscription(
  deps: WebhooksDeps,
  tenantId: string,
  body: z.output<typeof CreateWebhookSubscriptionBodySchema>,
): Promise<WebhookSubscriptionWithSecret> {
  checkReceiverUrl(body.url, deps.config.webhooks.allowInsecure);
  const now = deps.clock();
  const secret = generateSigningSecret();
  const row = await deps.db.transaction(async (tx) => {
    await requireRoomForOne(tx, tenantId, deps.config.webhooks.maxSubscriptions);
    const inserted = await repo.insertSubscription(tx, {
      id: deps.ids('whsub'),
      tenantId,
      url: body.url,
      eventTypes: [...new Set(body.eventTypes)],
      description: body.description ?? null,
      maxDeliveriesPerSecond: body.maxDeliveriesPerSecond ?? null,
      status: 'active',
      secretSealed: deps.secrets.seal(secret),
      createdAt: now,
      updatedAt: now,
    });
    await adjustCounter(tx, tenantId, SUBSCRIPTIONS_COUNTER, 1);
    return inserted;
  });
  return { ...toApiSubscription(row), signingSecret: secret };
}

/** Lists a tenant's subscriptions, newest first. */
export async function listWebhookSubscriptions(
  deps: WebhooksDeps,
  tenantId: string,
  query: PaginationQuery,
): Promise<Paginated<WebhookSubscription>> {
  return keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listWebhookSubscriptions' },
    query,
    fetch: (take, after) => repo.listSubscriptions(deps.db, tenantId, take, after),
    count: () => readCounter(deps.db, tenantId, SUBSCRIPTIONS_COUNTER),
    map: toApiSubscription,
  });
}

/** Reads one subscription. */
export async function getWebhookSubscription(deps: WebhooksDeps, tenantId: string, id: string) {
  return toApiSubscription(await requireSubscription(deps.db, tenantId, id));
}

/** Deletes a subscription: disabled, its queued attempts closed, and gone from reads. */
export async function deleteWebhookSubscription(
  deps: WebhooksDeps,
  tenantId: string,
  id: string,
): Promise<WebhookSubscription> {
  const now = deps.clock();
  const row = await deps.db.transaction(async (tx) => {
    await requireSubscription(tx, tenantId, id, true);
    const deleted = await disableSubscription(tx, tenantId, id, 'Deleted.', now, { deletedAt: now });
    await adjustCounter(tx, tenantId, SUBSCRIPTIONS_COUNTER, -1);
    return deleted;
  });
  if (!row) throw new NotFoundError(`Webhook subscription ${id} not found.`);
  return toApiSubscription(row);
}

/**
 * Changes a subscription's url, event types, description, throttle or status. `disabled` closes its queued
 * attempts as deleting would (recoverWebhookDeliveries re-sends them later); `active` clears the
 * reason and the failure streak, so delivery of new events resumes at once. A new throttle (or
 * none) applies at once to the attempts waiting for a turn of the old one.
 */
export async function updateWebhookSubscription(
  deps: WebhooksDeps,
  tenantId: string,
  id: string,
  body: z.output<typeof UpdateWebhookSubscriptionBodySchema>,
): Promise<WebhookSubscription> {
  if (body.url !== undefined) checkReceiverUrl(body.url, deps.config.webhooks.allowInsecure);
  const now = deps.clock();
  const row = await deps.db.transaction(async (tx) => {
    const current = await requireSubscription(tx, tenantId, id, true);
    const change: repo.SubscriptionChange = {
      url: body.url,
      eventTypes: body.eventTypes === undefined ? undefined : [...new Set(body.eventTypes)],
      description: body.description,
      maxDeliveriesPerSecond: body.maxDeliveriesPerSecond,
      reactivate: false,
      updatedAt: now,
    };
    if (body.status === 'disabled' && current.status === 'active') {
      await disableSubscription(tx, tenantId, id, 'Disabled by the tenant.', now);
    } else if (body.status === 'active' && current.status === 'disabled') {
      change.reactivate = true;
    }
    if (
      body.maxDeliveriesPerSecond !== undefined &&
      body.maxDeliveriesPerSecond !== current.maxDeliveriesPerSecond
    ) {
      await releaseTurns(tx, tenantId, id, now);
    }
    return repo.updateSubscription(tx, tenantId, id, change);
  });
  return toApiSubscription(row);
}

/**
 * Issues a new secret. The replaced one keeps signing for {@link ROTATION_OVERLAP_MS} so that
 * receivers can switch without dropping deliveries; a second rotation within the window drops
 * the oldest secret at once.
 */
export async function rotateWebhookSubscriptionSecret(
  deps: WebhooksDeps,
  tenantId: string,
  id: string,
): Promise<WebhookSubscriptionWithSecret> {
  const now = deps.clock();
  const secret = generateSigningSecret();
  const row = await deps.db.transaction(async (tx) => {
    const current = await requireSubscription(tx, tenantId, id, true);
    return repo.rotateSecret(tx, tenantId, id, {
      secretSealed: deps.secrets.seal(secret),
      previousSecretSealed: sealedCurrentSecret(deps.secrets, current),
      previousSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updatedAt: now,
    });
  });
  return { ...toApiSubscription(row), signingSecret: secret };
}

/** Locks a tenant's live subscription until `tx` ends, when it exists (`If-Match`, `http/conditional.ts`). */
export async function lockWebhookSubscription(tx: Tx, tenantId: string, id: string): Promise<void> {
  await repo.findSubscription(tx, tenantId, id, true);
}
