import type {
  PaginationQuery,
  RecoverWebhookDeliveriesBodySchema,
  WebhookDelivery,
  WebhookDeliveryPage,
} from '@customer-api/contract';
import type { z } from 'zod';
import {
  type DeliveryRow,
  deliveriesCounter,
  pendingAttempt,
  queueAttempts,
  type SubscriptionRow,
} from '../../delivery/queue-control.js';
import { retainedSince } from '../../delivery/retention.js';
import { iso, isoOrNull } from '../../lib/clock.js';
import { readCounter } from '../../lib/counters.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { keysetPage } from '../../lib/pagination.js';
import * as repo from './delivery-log.repo.js';
import { requireSubscription, type WebhooksDeps } from './webhooks.service.js';

/** Maps a stored attempt to the API shape. */
export function toApiDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    deliveryId: row.id,
    webhookSubscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    error: row.error,
    createdAt: iso(row.createdAt),
    nextAttemptAt: isoOrNull(row.nextAttemptAt),
  };
}

/** Lists a subscription's delivery attempts, newest first. */
export async function listWebhookDeliveries(
  deps: WebhooksDeps,
  tenantId: string,
  subscriptionId: string,
  query: PaginationQuery,
): Promise<WebhookDeliveryPage> {
  await requireSubscription(deps.db, tenantId, subscriptionId);
  const retained = retainedSince(deps.clock(), deps.config.webhooks.retentionDays);
  const page = await keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listWebhookDeliveries', filters: { subscriptionId } },
    query,
    fetch: (take, after) => repo.listDeliveries(deps.db, tenantId, subscriptionId, take, after),
    count: () => readCounter(deps.db, tenantId, deliveriesCounter(subscriptionId)),
    map: toApiDelivery,
  });
  return { ...page, retainedSince: iso(retained) };
}

function requireActive(subscription: SubscriptionRow): void {
  if (subscription.status !== 'active') {
    throw new ConflictError(
      `Webhook subscription ${subscription.id} is disabled (${subscription.disabledReason ?? 'no reason'}).`,
    );
  }
}

/** One manual attempt (no automatic retries) of an event, due now. */
function manualAttempt(
  deps: Pick<WebhooksDeps, 'clock' | 'ids'>,
  subscription: SubscriptionRow,
  event: repo.FailedEvent,
) {
  const now = deps.clock();
  const target = {
    tenantId: subscription.tenantId,
    subscriptionId: subscription.id,
    eventId: event.eventId,
    eventType: event.eventType,
  };
  return pendingAttempt(deps.ids, target, {
    attempt: event.lastAttempt + 1,
    retryStep: null,
    createdAt: now,
    nextAttemptAt: now,
  });
}

/** Queues a new attempt of a past delivery's event (202); 409 when the subscription is disabled. */
export async function redeliverWebhookDelivery(
  deps: WebhooksDeps,
  tenantId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const row = await deps.db.transaction(async (tx) => {
    // The lock orders concurrent redeliveries of one subscription, keeping attempt numbers distinct.
    const subscription = await requireSubscription(tx, tenantId, subscriptionId, true);
    const past = await repo.findDelivery(tx, tenantId, subscriptionId, deliveryId);
    if (!past) throw new NotFoundError(`Delivery ${deliveryId} not found.`);
    requireActive(subscription);
    const lastAttempt = await repo.lastAttempt(tx, tenantId, subscriptionId, past.eventId);
    const [inserted] = await queueAttempts(tx, [
      manualAttempt(deps, subscription, { eventId: past.eventId, eventType: past.eventType, lastAttempt }),
    ]);
    return inserted;
  });
  if (!row) throw new Error('insert returned no row');
  return toApiDelivery(row);
}

/** Queues one more attempt of every event whose delivery failed for good since `body.since`. */
export async function recoverWebhookDeliveries(
  deps: WebhooksDeps,
  tenantId: string,
  subscriptionId: string,
  body: z.output<typeof RecoverWebhookDeliveriesBodySchema>,
): Promise<{ queued: number }> {
  const since = new Date(body.since);
  return deps.db.transaction(async (tx) => {
    const subscription = await requireSubscription(tx, tenantId, subscriptionId, true);
    requireActive(subscription);
    const failed = await repo.failedEventsSince(tx, tenantId, subscriptionId, since);
    const rows = failed.map((event) => manualAttempt(deps, subscription, event));
    await queueAttempts(tx, rows);
    return { queued: rows.length };
  });
}
