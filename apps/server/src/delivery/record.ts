import { VERSION_EVENT_TYPES } from '@customer-api/contract';
import type { Handle, Tx } from '../db/port.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import {
  type AttemptResult,
  completeAttempt,
  completeSuccess,
  type DeliveryRow,
  disableSubscription,
  markFailing,
  pendingAttempt,
  queueAttempts,
} from './attempts.repo.js';
import { recordOperationalEvent } from './outbox.js';
import { failedTooLong, nextAttemptAt, parseRetryAfter, retryDelayMs } from './retry.js';
import type { SendOutcome } from './sender.js';
import type { Recorded, SuccessRecording } from './types.js';

export type { Recorded } from './types.js';

/** What recording needs besides the database. */
export interface RecordDeps {
  clock: Clock;
  ids: IdSource;
  /** Seconds between attempts (`WEBHOOKS_RETRY_SCHEDULE`). */
  retryScheduleSeconds: readonly number[];
  random?: () => number;
  /** Records successes in batches (the dispatcher's); without it each is its own statement. */
  successes?: SuccessRecording;
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

function failureText(outcome: SendOutcome): string {
  if (outcome.error) return outcome.error;
  return `Receiver answered HTTP ${outcome.status}`;
}

/**
 * Records one attempt's outcome in one transaction: the attempt row, the subscription's failure
 * run, the next attempt (schedule + jitter, never before `Retry-After`), and disabling on 410 Gone
 * or after five days of continuous failure. Nothing is written when the lease was lost.
 */
export async function recordOutcome(
  db: Handle,
  deps: RecordDeps,
  delivery: DeliveryRow,
  token: string,
  outcome: SendOutcome,
): Promise<Recorded> {
  const now = deps.clock();
  const base = {
    responseStatus: outcome.status,
    responseBody: outcome.body,
    durationMs: outcome.durationMs,
    attemptedAt: now,
  };
  if (isSuccess(outcome.status)) {
    const recorded = deps.successes
      ? await deps.successes.record(delivery, token, base, delivery)
      : await completeSuccess(db, delivery, token, base);
    return recorded ? 'succeeded' : 'lease-lost';
  }
  const failed: FailedResult = {
    ...base,
    status: 'failed',
    error: failureText(outcome),
    nextAttemptAt: null,
  };
  try {
    return await db.transaction((tx) => recordFailure(tx, deps, { delivery, token, outcome, failed, now }));
  } catch (err) {
    if (err instanceof LeaseLostError) return 'lease-lost';
    throw err;
  }
}

/** A failed attempt's result: its error is always said. */
type FailedResult = AttemptResult & { error: string };

interface Failure {
  delivery: DeliveryRow;
  token: string;
  outcome: SendOutcome;
  failed: FailedResult;
  now: Date;
}

/**
 * The failure path of {@link recordOutcome}, inside its transaction. Disabling a subscription that
 * was active, and the last retry of a version event failing, each write their operational event
 * (`webhook.subscription.disabled`, `webhook.delivery.exhausted`) in the same transaction. A
 * failed delivery of an operational event writes none, so events about events cannot loop.
 */
async function recordFailure(tx: Tx, deps: RecordDeps, f: Failure): Promise<Recorded> {
  const { delivery, now } = f;
  const complete = async (result: AttemptResult) => {
    // Lease lost: roll back whatever this transaction wrote; the new holder records instead.
    if (!(await completeAttempt(tx, delivery, f.token, result))) throw new LeaseLostError();
  };
  const subscription = await markFailing(tx, delivery.tenantId, delivery.subscriptionId, now);
  const active = subscription?.status === 'active';
  const disableReason =
    f.outcome.status === 410
      ? 'The receiver answered 410 Gone.'
      : active && failedTooLong(subscription.failingSince, now)
        ? 'Every delivery failed for 5 days.'
        : undefined;
  if (disableReason) {
    await complete(f.failed);
    const disabled = await disableSubscription(
      tx,
      delivery.tenantId,
      delivery.subscriptionId,
      disableReason,
      now,
    );
    if (active && disabled) {
      await recordOperationalEvent(tx, deps, delivery.tenantId, {
        type: 'webhook.subscription.disabled',
        webhookSubscriptionId: disabled.id,
        url: disabled.url,
        disabledReason: disableReason,
      });
    }
    return 'disabled';
  }
  const retryAt = active ? scheduleRetry(deps, delivery, f.outcome, now) : undefined;
  await complete({ ...f.failed, nextAttemptAt: retryAt ?? null });
  if (retryAt) {
    await insertRetry(tx, deps, delivery, retryAt);
    return 'retrying';
  }
  if (active && delivery.retryStep !== null && isVersionEvent(delivery.eventType)) {
    await recordOperationalEvent(tx, deps, delivery.tenantId, {
      type: 'webhook.delivery.exhausted',
      webhookSubscriptionId: delivery.subscriptionId,
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      deliveryId: delivery.id,
      attempts: delivery.attempt,
      responseStatus: f.outcome.status,
      error: f.failed.error,
    });
  }
  return 'failed';
}

const isVersionEvent = (type: string): type is (typeof VERSION_EVENT_TYPES)[number] =>
  (VERSION_EVENT_TYPES as readonly string[]).includes(type);

class LeaseLostError extends Error {}

async function insertRetry(tx: Tx, deps: RecordDeps, delivery: DeliveryRow, at: Date, now = deps.clock()) {
  const run = {
    attempt: delivery.attempt + 1,
    retryStep: (delivery.retryStep ?? 0) + 1,
    createdAt: now,
    nextAttemptAt: at,
  };
  await queueAttempts(tx, [pendingAttempt(deps.ids, delivery, run)]);
}

function scheduleRetry(deps: RecordDeps, delivery: DeliveryRow, outcome: SendOutcome, now: Date) {
  // Manual redeliveries (retry_step null) are one attempt each, as on GitHub.
  if (delivery.retryStep === null) return undefined;
  const delay = retryDelayMs(deps.retryScheduleSeconds, delivery.retryStep, deps.random);
  return nextAttemptAt(now, delay, parseRetryAfter(outcome.retryAfter, now));
}
