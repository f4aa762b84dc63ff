import {
  type Input,
  intArray,
  type Refs,
  raw,
  type Sql,
  sql,
  textArray,
  timestamptzArray,
} from '../db/sql.js';
import { inTenant, type TenantScope } from './tenant-scope.js';

// Pieces of the delivery engine's statements, over named parameters: the attempts' insert (fan-out,
// retries, redeliveries), the successes' batch record (alone, or with the next claim) and the
// relaxed commit of the dispatcher's own bookkeeping.

/**
 * A CTE `relaxed` (one row) that lets the statement's transaction commit without waiting for its
 * WAL to reach the disk (`synchronous_commit = off` for that transaction only; the connection keeps
 * its own setting). For the dispatcher's bookkeeping (fan-outs, claims, successes), whose loss in a
 * database crash only means that attempts are sent again, never that an event is lost: the events
 * themselves commit with the API's writes, which wait as always (decision record 0229). The
 * statement must read `relaxed` (joined where the statement writes anything) for it to apply.
 */
export const RELAXED_COMMIT = raw(
  "relaxed AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true) AS setting)",
);

/** The parameters of {@link unnestAttempts}: one array per column, whatever the number of attempts. */
export const ATTEMPT_PARAMS = {
  attemptIds: textArray,
  attemptTenantIds: textArray,
  attemptSubscriptionIds: textArray,
  attemptEventIds: textArray,
  attemptEventTypes: textArray,
  attemptNumbers: intArray,
  attemptRetrySteps: intArray,
  attemptCreatedAt: timestamptzArray,
  attemptNextAt: timestamptzArray,
  attemptScopes: textArray,
};

/** `unnest(…) AS a(…)`: the attempts of `attemptInput` (attempts.repo.ts), one array parameter per column. */
export function unnestAttempts(p: Refs<typeof ATTEMPT_PARAMS>): Sql {
  return sql`unnest(${p.attemptIds}::text[], ${p.attemptTenantIds}::text[], ${p.attemptSubscriptionIds}::text[],
${p.attemptEventIds}::text[], ${p.attemptEventTypes}::text[], ${p.attemptNumbers}::int[], ${p.attemptRetrySteps}::int[],
${p.attemptCreatedAt}::timestamptz[], ${p.attemptNextAt}::timestamptz[], ${p.attemptScopes}::text[])
AS a(id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, created_at, next_attempt_at, scope)`;
}

/**
 * Three CTEs over a CTE `attempts` (read from {@link unnestAttempts}, or the hand-over's):
 * `inserted` writes them to the delivery log as pending (`returning` says what it answers),
 * `queued` puts them in the delivery queue (with `leased`, `attempts` also has `lease_token` and
 * `leased_until`; `queuedReturning` says what it answers), and `counted` adds them to their
 * subscriptions' counters in the same statement, in scope order so that concurrent writers cannot
 * deadlock. Every attempt is inserted, queued and counted here, so the queue and the counters
 * cannot drift from the log.
 */
export function insertAndCount(
  returning: Sql = raw(''),
  { leased = false, queuedReturning = raw('') }: { leased?: boolean; queuedReturning?: Sql } = {},
): Sql {
  const lease = raw(leased ? ', lease_token, leased_until' : '');
  return sql`inserted AS (
  INSERT INTO webhook_deliveries
    (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, status, created_at, next_attempt_at)
  SELECT id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, 'pending', created_at, next_attempt_at
  FROM attempts ${returning}
), queued AS (
  INSERT INTO webhook_delivery_queue (id, tenant_id, subscription_id, next_attempt_at${lease})
  SELECT id, tenant_id, subscription_id, next_attempt_at${lease} FROM attempts ${queuedReturning}
), counted AS (
  INSERT INTO tenant_counters (tenant_id, scope, count)
  SELECT tenant_id, scope, count(*) FROM attempts GROUP BY tenant_id, scope ORDER BY tenant_id, scope
  ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + EXCLUDED.count
)`;
}

/**
 * What a statement that leases queue rows answers of each: the row whole, and where it lies
 * (`queue_at`, its `ctid` as text), which the success record looks at first (decision 0247).
 */
export const QUEUE_RETURNING = raw('RETURNING *, ctid::text AS queue_at');

/** The parameters of {@link completeSuccessesCtes}: one array per column ({@link SuccessColumns}). */
export const SUCCESS_PARAMS = {
  tenantIds: textArray,
  ids: textArray,
  tokens: textArray,
  queueAts: textArray,
  responseStatuses: intArray,
  responseBodies: textArray,
  durationsMs: intArray,
  attemptedAt: timestamptzArray,
};

/** Successful attempts to record, one array per column. */
export type SuccessColumns = Input<typeof SUCCESS_PARAMS>;

/**
 * The batch form of `completeSuccess`, as CTEs over {@link SUCCESS_PARAMS}: every attempt still
 * leased to its token leaves the queue (`dequeued`) and its log row becomes succeeded (`done`
 * answers its id), and the failure runs of their subscriptions end. success-batch.ts and
 * lease.repo.ts build their statements on it.
 *
 * The log row changes no indexed column (status, response and times only): a heap-only update,
 * no new index entry (decision 0240). Each attempt's queue row is looked for first where its claim
 * left it (`queue_at`, a TID scan), then by its key when it has moved or is unknown; its log row
 * through the log's primary key (`found`). Both are then written by their `ctid`: the planner
 * judges the tables by statistics taken before a backlog built up, and would otherwise pick any
 * index that starts with the tenant, or scan them whole (decision 0247). A queue row changed since
 * it was found no longer matches and counts as a lost lease. Only the statement that deletes an
 * attempt's queue row writes its pending log row, so the log row found is the one written.
 */
export function completeSuccessesCtes(p: Refs<typeof SUCCESS_PARAMS>, scope?: TenantScope): Sql {
  return sql`input AS (
  SELECT * FROM unnest(${p.tenantIds}::text[], ${p.ids}::text[], ${p.tokens}::text[], ${p.queueAts}::text[]::tid[],
${p.responseStatuses}::int[], ${p.responseBodies}::text[], ${p.durationsMs}::int[], ${p.attemptedAt}::timestamptz[])
    AS i(tenant_id, id, token, queue_at, response_status, response_body, duration_ms, attempted_at)
), found AS MATERIALIZED (
  SELECT i.*, f.ctid AS at, g.ctid AS log_at FROM input i CROSS JOIN LATERAL (
    SELECT q.ctid FROM webhook_delivery_queue q
    WHERE q.ctid = i.queue_at AND q.tenant_id = i.tenant_id AND q.id = i.id AND q.lease_token = i.token${inTenant('q', scope)}
    UNION ALL
    SELECT q.ctid FROM webhook_delivery_queue q
    WHERE q.tenant_id = i.tenant_id AND q.id = i.id AND q.lease_token = i.token${inTenant('q', scope)} LIMIT 1) f
  CROSS JOIN LATERAL (
    SELECT d.ctid FROM webhook_deliveries d
    WHERE d.tenant_id = i.tenant_id AND d.id = i.id${inTenant('d', scope)} LIMIT 1) g
), dequeued AS (
  DELETE FROM webhook_delivery_queue q USING found f
  WHERE q.ctid = ANY (ARRAY(SELECT at FROM found)) AND q.ctid = f.at AND q.lease_token = f.token${inTenant('q', scope)}
  RETURNING f.log_at, f.response_status, f.response_body, f.duration_ms, f.attempted_at
), done AS (
  UPDATE webhook_deliveries d
  SET status = 'succeeded', response_status = x.response_status, response_body = x.response_body,
    duration_ms = x.duration_ms, error = NULL, attempted_at = x.attempted_at, next_attempt_at = NULL
  FROM dequeued x
  WHERE d.ctid = ANY (ARRAY(SELECT log_at FROM found)) AND d.ctid = x.log_at${inTenant('d', scope)}
  RETURNING d.id, d.tenant_id, d.subscription_id, x.attempted_at
), cleared AS (
  UPDATE webhook_subscriptions s SET failing_since = NULL, updated_at = c.at
  FROM (SELECT tenant_id, subscription_id, max(attempted_at) AS at FROM done GROUP BY tenant_id, subscription_id) c
  WHERE s.tenant_id = c.tenant_id AND s.id = c.subscription_id AND s.failing_since IS NOT NULL${inTenant('s', scope)}
)`;
}
