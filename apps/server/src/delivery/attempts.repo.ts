import type { Handle, Tx } from '../db/port.js';
import { webhookDeliveries, webhookSubscriptions } from '../db/schema/index.js';
import {
  assignments,
  columns,
  type Input,
  int,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  timestamptz,
} from '../db/sql.js';
import type { IdSource } from '../lib/ids.js';
import { ATTEMPT_PARAMS, insertAndCount, unnestAttempts } from './deliveries.sql.js';

import type { AttemptKey, DeliveryRow, SubscriptionRow } from './types.js';

export type { AttemptKey, DeliveryRow, EventRow, SubscriptionRow } from './types.js';

/** Counter scope of a subscription's delivery attempts (listWebhookDeliveries' totalCount). */
export const deliveriesCounter = (subscriptionId: string) => `webhook_deliveries:${subscriptionId}`;

/** The event and the subscription an attempt delivers (a stored attempt names them too). */
export type AttemptTarget = Pick<DeliveryRow, 'tenantId' | 'subscriptionId' | 'eventId' | 'eventType'>;

/** An attempt's place in its event's run: `retryStep` null marks a manual redelivery. */
export type AttemptRun = Pick<DeliveryRow, 'attempt' | 'retryStep' | 'createdAt'> & { nextAttemptAt: Date };

/** A pending attempt, ready for {@link queueAttempts}. */
export type NewAttempt = Pick<DeliveryRow, 'id'> & AttemptTarget & AttemptRun;

/** Builds a pending attempt of `target`'s event: fan-out, retries and redeliveries all make theirs here. */
export function pendingAttempt(ids: IdSource, target: AttemptTarget, run: AttemptRun): NewAttempt {
  return {
    id: ids('whdel'),
    tenantId: target.tenantId,
    subscriptionId: target.subscriptionId,
    eventId: target.eventId,
    eventType: target.eventType,
    attempt: run.attempt,
    retryStep: run.retryStep,
    createdAt: run.createdAt,
    nextAttemptAt: run.nextAttemptAt,
  };
}

/** The values of {@link ATTEMPT_PARAMS} for `attempts`. */
export function attemptInput(attempts: readonly NewAttempt[]): Input<typeof ATTEMPT_PARAMS> {
  return {
    attemptIds: attempts.map((a) => a.id),
    attemptTenantIds: attempts.map((a) => a.tenantId),
    attemptSubscriptionIds: attempts.map((a) => a.subscriptionId),
    attemptEventIds: attempts.map((a) => a.eventId),
    attemptEventTypes: attempts.map((a) => a.eventType),
    attemptNumbers: attempts.map((a) => a.attempt),
    attemptRetrySteps: attempts.map((a) => a.retryStep),
    attemptCreatedAt: attempts.map((a) => a.createdAt),
    attemptNextAt: attempts.map((a) => a.nextAttemptAt),
    attemptScopes: attempts.map((a) => deliveriesCounter(a.subscriptionId)),
  };
}

const queue = statement({
  name: 'webhook_queue_attempts',
  params: ATTEMPT_PARAMS,
  sql: (p) => sql`WITH attempts AS (SELECT * FROM ${unnestAttempts(p)}),
${insertAndCount(sql`RETURNING ${columns(webhookDeliveries)}`)}
SELECT * FROM inserted`,
  row: rowOf<DeliveryRow>(),
});

/** Inserts pending attempts in the log and the queue and counts them, in one statement; returns the log rows. */
export async function queueAttempts(db: Handle, attempts: readonly NewAttempt[]): Promise<DeliveryRow[]> {
  if (attempts.length === 0) return [];
  return db.all(queue, attemptInput(attempts));
}

/** What an attempt's outcome writes onto its row. */
export type AttemptResult = Pick<
  DeliveryRow,
  'status' | 'responseStatus' | 'responseBody' | 'durationMs' | 'error' | 'attemptedAt' | 'nextAttemptAt'
>;

const complete = statement({
  name: 'webhook_complete_attempt',
  params: {
    tenantId: text,
    id: text,
    token: text,
    status: text,
    responseStatus: nullable(int),
    responseBody: nullable(text),
    durationMs: nullable(int),
    error: nullable(text),
    attemptedAt: nullable(timestamptz),
    nextAttemptAt: nullable(timestamptz),
  },
  sql: (p) => sql`WITH gone AS (
  DELETE FROM webhook_delivery_queue
  WHERE tenant_id = ${p.tenantId} AND id = ${p.id} AND lease_token = ${p.token} RETURNING id
)
UPDATE webhook_deliveries SET ${assignments(webhookDeliveries, {
    status: p.status,
    responseStatus: p.responseStatus,
    responseBody: p.responseBody,
    durationMs: p.durationMs,
    error: p.error,
    attemptedAt: p.attemptedAt,
    nextAttemptAt: p.nextAttemptAt,
  })}
WHERE tenant_id = ${p.tenantId} AND id IN (SELECT id FROM gone)`,
});

/**
 * Records an attempt's outcome if this dispatcher still holds its lease: takes it off the queue and
 * writes its log row; returns false when the lease was lost (it ran out and another dispatcher took
 * the attempt over).
 */
export async function completeAttempt(
  db: Handle,
  attempt: AttemptKey,
  token: string,
  result: AttemptResult,
): Promise<boolean> {
  return (await db.run(complete, { tenantId: attempt.tenantId, id: attempt.id, token, ...result })) > 0;
}

const completeOne = statement({
  name: 'webhook_complete_success',
  params: {
    tenantId: text,
    id: text,
    token: text,
    responseStatus: nullable(int),
    responseBody: nullable(text),
    durationMs: nullable(int),
    attemptedAt: nullable(timestamptz),
  },
  sql: (p) => sql`WITH gone AS (
  DELETE FROM webhook_delivery_queue
  WHERE tenant_id = ${p.tenantId} AND id = ${p.id} AND lease_token = ${p.token} RETURNING id
), done AS (
  UPDATE webhook_deliveries
  SET status = 'succeeded', response_status = ${p.responseStatus}, response_body = ${p.responseBody},
    duration_ms = ${p.durationMs}, error = NULL, attempted_at = ${p.attemptedAt}::timestamptz,
    next_attempt_at = NULL
  WHERE tenant_id = ${p.tenantId} AND id IN (SELECT id FROM gone)
  RETURNING subscription_id
), cleared AS (
  UPDATE webhook_subscriptions SET failing_since = NULL, updated_at = ${p.attemptedAt}::timestamptz
  WHERE tenant_id = ${p.tenantId} AND id IN (SELECT subscription_id FROM done) AND failing_since IS NOT NULL
)
SELECT count(*)::int AS n FROM done`,
  row: rowOf<{ n: number }>(),
});

/**
 * Records a success and ends the subscription's failure run in one statement (the hot path: one
 * round trip, one commit). False when the lease was lost.
 */
export async function completeSuccess(
  db: Handle,
  attempt: AttemptKey,
  token: string,
  result: Pick<DeliveryRow, 'responseStatus' | 'responseBody' | 'durationMs' | 'attemptedAt'>,
): Promise<boolean> {
  const row = await db.first(completeOne, { tenantId: attempt.tenantId, id: attempt.id, token, ...result });
  return (row?.n ?? 0) > 0;
}

const failing = statement({
  name: 'webhook_subscription_mark_failing',
  params: { tenantId: text, id: text, now: timestamptz },
  sql: (
    p,
  ) => sql`UPDATE webhook_subscriptions SET failing_since = coalesce(failing_since, ${p.now}::timestamptz)
WHERE tenant_id = ${p.tenantId} AND id = ${p.id} RETURNING failing_since AS "failingSince", status`,
  row: rowOf<Pick<SubscriptionRow, 'failingSince' | 'status'>>(),
});

/** Starts (or continues) a subscription's failure run; returns when it started and the status. */
export async function markFailing(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  now: Date,
): Promise<Pick<SubscriptionRow, 'failingSince' | 'status'> | undefined> {
  return db.first(failing, { tenantId, id: subscriptionId, now });
}

const SUBSCRIPTION = columns(webhookSubscriptions);

const disable = statement({
  name: 'webhook_subscription_disable',
  params: { tenantId: text, id: text, reason: text, now: timestamptz },
  sql: (p) =>
    sql`UPDATE webhook_subscriptions SET status = 'disabled', ${assignments(webhookSubscriptions, {
      disabledReason: p.reason,
      updatedAt: p.now,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.id} RETURNING ${SUBSCRIPTION}`,
  row: rowOf<SubscriptionRow>(),
});

const disableDeleted = statement({
  name: 'webhook_subscription_disable_deleted',
  params: { tenantId: text, id: text, reason: text, now: timestamptz, deletedAt: timestamptz },
  sql: (p) =>
    sql`UPDATE webhook_subscriptions SET status = 'disabled', ${assignments(webhookSubscriptions, {
      disabledReason: p.reason,
      updatedAt: p.now,
      deletedAt: p.deletedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.id} RETURNING ${SUBSCRIPTION}`,
  row: rowOf<SubscriptionRow>(),
});

const closeQueued = statement({
  name: 'webhook_deliveries_close_disabled',
  params: { tenantId: text, subscriptionId: text, error: text, now: timestamptz },
  sql: (p) => sql`WITH gone AS (
  DELETE FROM webhook_delivery_queue
  WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId}
    AND (leased_until IS NULL OR leased_until <= ${p.now})
  RETURNING id
)
UPDATE webhook_deliveries SET status = 'failed', error = ${p.error}, next_attempt_at = NULL
WHERE tenant_id = ${p.tenantId} AND id IN (SELECT id FROM gone)`,
});

/**
 * Disables a subscription and closes its queued attempts as failed, in the caller's transaction.
 * Attempts being sent right now keep their lease and are recorded by their dispatcher; one whose
 * dispatcher died is closed unsent when it is next claimed.
 */
export async function disableSubscription(
  tx: Tx,
  tenantId: string,
  subscriptionId: string,
  reason: string,
  now: Date,
  extra: { deletedAt?: Date } = {},
): Promise<SubscriptionRow | undefined> {
  const row = extra.deletedAt
    ? await tx.first(disableDeleted, {
        tenantId,
        id: subscriptionId,
        reason,
        now,
        deletedAt: extra.deletedAt,
      })
    : await tx.first(disable, { tenantId, id: subscriptionId, reason, now });
  await tx.run(closeQueued, {
    tenantId,
    subscriptionId,
    error: `Not sent: the subscription was disabled (${reason}).`,
    now,
  });
  return row;
}
