import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { rowQuery, selectList } from '../db/fast.js';
import { webhookDeliveries, type webhookEvents, webhookSubscriptions } from '../db/schema/index.js';
import type { IdSource } from '../lib/ids.js';

/** A stored delivery attempt. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** A stored subscription (with its secrets: never log it, never return it). */
export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
/** A stored outbox event. */
export type EventRow = typeof webhookEvents.$inferSelect;

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

/** The row source `attempts` reads: its columns, each passed as one array parameter. */
const ATTEMPT_COLUMNS = [
  ['id', 'text'],
  ['tenant_id', 'text'],
  ['subscription_id', 'text'],
  ['event_id', 'text'],
  ['event_type', 'text'],
  ['attempt', 'int'],
  ['retry_step', 'int'],
  ['created_at', 'timestamptz'],
  ['next_attempt_at', 'timestamptz'],
  ['scope', 'text'],
] as const;

/** `unnest(…) AS a(…)`: the attempts of {@link attemptValues}, passed as parameters `$first` on. */
export function unnestAttempts(first: number): string {
  const arrays = ATTEMPT_COLUMNS.map(([, type], i) => `$${first + i}::${type}[]`);
  return `unnest(${arrays.join(', ')}) AS a(${ATTEMPT_COLUMNS.map(([name]) => name).join(', ')})`;
}

/** The parameters of {@link unnestAttempts}: one array per column, whatever the number of attempts. */
export function attemptValues(attempts: readonly NewAttempt[]): unknown[][] {
  return [
    attempts.map((a) => a.id),
    attempts.map((a) => a.tenantId),
    attempts.map((a) => a.subscriptionId),
    attempts.map((a) => a.eventId),
    attempts.map((a) => a.eventType),
    attempts.map((a) => a.attempt),
    attempts.map((a) => a.retryStep),
    attempts.map((a) => a.createdAt.toISOString()),
    attempts.map((a) => a.nextAttemptAt.toISOString()),
    attempts.map((a) => deliveriesCounter(a.subscriptionId)),
  ];
}

/**
 * Two CTEs over a CTE `attempts` (read from {@link unnestAttempts}): `inserted` inserts them
 * pending (`returning` says what it answers), `counted` adds them to their subscriptions' counters
 * in the same statement, in scope order so that concurrent writers cannot deadlock. Every attempt
 * is inserted and counted here, so the counters cannot drift from the rows.
 */
export function insertAndCount(returning = ''): string {
  return `inserted AS (
  INSERT INTO webhook_deliveries
    (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, status, created_at, next_attempt_at)
  SELECT id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, 'pending', created_at, next_attempt_at
  FROM attempts ${returning}
), counted AS (
  INSERT INTO tenant_counters (tenant_id, scope, count)
  SELECT tenant_id, scope, count(*) FROM attempts GROUP BY tenant_id, scope ORDER BY tenant_id, scope
  ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + EXCLUDED.count
)`;
}

const QUEUE_ATTEMPTS = `WITH attempts AS (SELECT * FROM ${unnestAttempts(1)}),
${insertAndCount(`RETURNING ${selectList(webhookDeliveries)}`)}
SELECT * FROM inserted`;

/** Inserts pending attempts and counts them, in one statement; returns the stored rows. */
export async function queueAttempts(tx: Db, attempts: readonly NewAttempt[]): Promise<DeliveryRow[]> {
  if (attempts.length === 0) return [];
  return rowQuery(tx)<DeliveryRow>('webhook_queue_attempts', QUEUE_ATTEMPTS, attemptValues(attempts));
}

/** What an attempt's outcome writes onto its row. */
export type AttemptResult = Pick<
  DeliveryRow,
  'status' | 'responseStatus' | 'responseBody' | 'durationMs' | 'error' | 'attemptedAt' | 'nextAttemptAt'
>;

/**
 * Records an attempt's outcome if this dispatcher still holds its lease; returns false when the
 * lease was lost (it ran out and another dispatcher took the attempt over).
 */
export async function completeAttempt(
  tx: Db,
  id: string,
  token: string,
  result: AttemptResult,
): Promise<boolean> {
  const d = webhookDeliveries;
  const rows = await tx
    .update(d)
    .set({ ...result, leaseToken: null, leasedUntil: null })
    .where(and(eq(d.id, id), eq(d.leaseToken, token), eq(d.status, 'pending')))
    .returning({ id: d.id });
  return rows.length > 0;
}

/**
 * Records a success and ends the subscription's failure run in one statement (the hot path: one
 * round trip, one commit). False when the lease was lost.
 */
export async function completeSuccess(
  db: Db,
  id: string,
  token: string,
  result: Pick<DeliveryRow, 'responseStatus' | 'responseBody' | 'durationMs' | 'attemptedAt'>,
): Promise<boolean> {
  const at = result.attemptedAt?.toISOString() ?? null;
  // Both drivers (node-postgres, PGlite) answer `execute` with `{ rows }`.
  const res = (await db.execute(sql`
    WITH done AS (
      UPDATE ${webhookDeliveries}
      SET status = 'succeeded', response_status = ${result.responseStatus}, response_body = ${result.responseBody},
        duration_ms = ${result.durationMs}, error = NULL, attempted_at = ${at}::timestamptz,
        next_attempt_at = NULL, lease_token = NULL, leased_until = NULL
      WHERE id = ${id} AND lease_token = ${token} AND status = 'pending'
      RETURNING subscription_id
    ), cleared AS (
      UPDATE ${webhookSubscriptions} SET failing_since = NULL, updated_at = ${at}::timestamptz
      WHERE id IN (SELECT subscription_id FROM done) AND failing_since IS NOT NULL
    )
    SELECT count(*)::int AS n FROM done`)) as unknown as { rows: Array<{ n: number }> };
  return Number(res.rows[0]?.n ?? 0) > 0;
}

/*
 * The batch form of `completeSuccess`, as CTEs over parameters $1-$6 (one array per column): every
 * attempt still leased to its token becomes succeeded (`done` answers its id), and the failure runs
 * of their subscriptions end. success-batch.ts and lease.repo.ts build their statements on it.
 */
export const COMPLETE_SUCCESSES_CTES = `input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::timestamptz[])
    AS i(id, token, response_status, response_body, duration_ms, attempted_at)
), done AS (
  UPDATE webhook_deliveries d
  SET status = 'succeeded', response_status = i.response_status, response_body = i.response_body,
    duration_ms = i.duration_ms, error = NULL, attempted_at = i.attempted_at,
    next_attempt_at = NULL, lease_token = NULL, leased_until = NULL
  FROM input i
  WHERE d.id = i.id AND d.lease_token = i.token AND d.status = 'pending'
  RETURNING d.id, d.subscription_id, i.attempted_at
), cleared AS (
  UPDATE webhook_subscriptions s SET failing_since = NULL, updated_at = c.at
  FROM (SELECT subscription_id, max(attempted_at) AS at FROM done GROUP BY subscription_id) c
  WHERE s.id = c.subscription_id AND s.failing_since IS NOT NULL
)`;

/** Successful attempts to record, one array per column ({@link successValues}). */
export interface SuccessColumns {
  ids: string[];
  tokens: string[];
  responseStatuses: (number | null)[];
  responseBodies: (string | null)[];
  durationsMs: (number | null)[];
  attemptedAt: (string | null)[];
}

/** The parameters $1-$6 of {@link COMPLETE_SUCCESSES_CTES}. */
export function successValues(c: SuccessColumns): unknown[] {
  return [c.ids, c.tokens, c.responseStatuses, c.responseBodies, c.durationsMs, c.attemptedAt];
}

/** Starts (or continues) a subscription's failure run; returns when it started and the status. */
export async function markFailing(
  tx: Db,
  subscriptionId: string,
  now: Date,
): Promise<Pick<SubscriptionRow, 'failingSince' | 'status'> | undefined> {
  const s = webhookSubscriptions;
  const [row] = await tx
    .update(s)
    .set({ failingSince: sql`coalesce(${s.failingSince}, ${now.toISOString()}::timestamptz)` })
    .where(eq(s.id, subscriptionId))
    .returning({ failingSince: s.failingSince, status: s.status });
  return row;
}

/**
 * Disables a subscription and closes its queued attempts as failed, in the caller's transaction.
 * Attempts being sent right now keep their lease and are recorded by their dispatcher; one whose
 * dispatcher died is closed unsent when it is next claimed.
 */
export async function disableSubscription(
  tx: Db,
  subscriptionId: string,
  reason: string,
  now: Date,
  extra: { deletedAt?: Date } = {},
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(webhookSubscriptions)
    .set({ status: 'disabled', disabledReason: reason, updatedAt: now, ...extra })
    .where(eq(webhookSubscriptions.id, subscriptionId))
    .returning();
  await tx
    .update(webhookDeliveries)
    .set({
      status: 'failed',
      error: `Not sent: the subscription was disabled (${reason}).`,
      nextAttemptAt: null,
      leaseToken: null,
      leasedUntil: null,
    })
    .where(
      and(
        eq(webhookDeliveries.subscriptionId, subscriptionId),
        eq(webhookDeliveries.status, 'pending'),
        or(isNull(webhookDeliveries.leasedUntil), lte(webhookDeliveries.leasedUntil, now)),
      ),
    );
  return row;
}
