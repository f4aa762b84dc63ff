import type { Dispatcher } from 'undici';
import type { Config } from '../config.js';
import type { Db } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
  openCurrentSecret,
  openPreviousSecret,
  type StoredSecrets,
} from '../secrets/subscription-secrets.js';
import { completeAttempt, type DeliveryRow, type SubscriptionRow } from './attempts.repo.js';
import type { PendingWrite } from './lease.repo.js';
import { recordOutcome } from './record.js';
import { SendAbortedError, sendDelivery } from './sender.js';
import { type SigningSecrets, signDelivery } from './sign.js';
import type { DeliveryObserver, DispatcherLog, SendingEvent, SuccessRecording, Target } from './types.js';

export type { DeliveryObserver, Target } from './types.js';

/** What delivering one attempt needs. */
export interface DeliverDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
  webhooks: Config['webhooks'];
  /** Opens the subscriptions' sealed signing secrets. */
  secrets: SecretBox;
  agent: Dispatcher;
  /** Aborted when the dispatcher is killed: the attempt is then left unrecorded. */
  abort: AbortSignal;
  log: DispatcherLog;
  random?: () => number;
  observer?: DeliveryObserver | undefined;
  /** Records successes in batches; without it each is its own statement. */
  successes?: SuccessRecording;
}

/** The exact body of a delivery: `{timestamp, eventId, payload}` (specification, Events). */
export function deliveryBody(event: SendingEvent): string {
  return JSON.stringify({
    timestamp: event.createdAt.toISOString(),
    eventId: event.id,
    payload: event.payload,
  });
}

/**
 * The secrets that sign now: the current one, and the previous one during its overlap. They are
 * opened through the box, which keeps opened values in memory: a subscription's secret is
 * decrypted once, not per attempt.
 */
export function liveSecrets(
  box: SecretBox,
  subscription: StoredSecrets & Pick<SubscriptionRow, 'previousSecretExpiresAt'>,
  now: Date,
): SigningSecrets {
  const current = openCurrentSecret(box, subscription);
  const overlap =
    subscription.previousSecretExpiresAt !== null &&
    subscription.previousSecretExpiresAt.getTime() > now.getTime();
  const previous = overlap ? openPreviousSecret(box, subscription) : undefined;
  return previous === undefined ? { current } : { current, previous };
}

/**
 * Sends one leased attempt and records the outcome. A dispatcher killed between sending and
 * recording records nothing: the lease runs out and the attempt is sent again (at-least-once).
 * `sent` is called once the HTTP exchange is over (or was never started), before the outcome is
 * recorded: the receiver no longer holds anything of this attempt. An attempt sent before its rows
 * were written (`written`, a hand-over) is recorded once they are, and not at all when they are not
 * this dispatcher's (its event is fanned out again).
 */
export async function deliverOne(
  deps: DeliverDeps,
  delivery: DeliveryRow,
  token: string,
  target: Target | undefined,
  sent?: () => void,
  written?: PendingWrite,
): Promise<void> {
  const { subscription, event } = target ?? {};
  const live = subscription !== undefined && subscription.status === 'active' && !subscription.deletedAt;
  if (!live || !event) {
    sent?.();
    written?.start();
    if (written && !(await written.done)) return;
    await completeAttempt(deps.db, delivery, token, {
      status: 'failed',
      responseStatus: null,
      responseBody: null,
      durationMs: null,
      error: live
        ? 'Not sent: the event is older than the webhook retention and was purged.'
        : 'Not sent: the subscription is disabled or deleted.',
      attemptedAt: deps.clock(),
      nextAttemptAt: null,
    });
    return;
  }
  const body = deliveryBody(event);
  const headers = signDelivery({
    eventId: event.id,
    body,
    timestampMs: deps.clock().getTime(),
    secrets: liveSecrets(deps.secrets, subscription, deps.clock()),
  });
  let outcome: Awaited<ReturnType<typeof sendDelivery>>;
  try {
    outcome = await sendDelivery(deps.agent, {
      url: subscription.url,
      body,
      headers,
      timeoutMs: deps.webhooks.timeoutMs,
      abort: deps.abort,
    });
  } catch (err) {
    if (err instanceof SendAbortedError) return;
    throw err;
  } finally {
    sent?.();
    written?.start();
  }
  if (deps.abort.aborted) return;
  if (outcome.failure !== undefined) {
    // The delivery log shows only the category; what really happened (addresses, resolver and TLS
    // messages) is for the operator.
    deps.log.warn(
      {
        err: outcome.failure,
        deliveryId: delivery.id,
        webhookSubscriptionId: subscription.id,
        tenantId: delivery.tenantId,
      },
      `webhook attempt failed: ${outcome.error}`,
    );
  }
  if (written && !(await written.done)) return;
  const recorded = await recordOutcome(
    deps.db,
    { ...deps, retryScheduleSeconds: deps.webhooks.retryScheduleSeconds },
    delivery,
    token,
    outcome,
  );
  deps.observer?.delivered(recorded, outcome.durationMs / 1000);
  if (recorded === 'disabled') {
    deps.log.warn({ webhookSubscriptionId: subscription.id }, 'webhook subscription disabled');
  }
}
