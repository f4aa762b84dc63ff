import { type Refs, type Sql, sql, text, textArray, timestamptz } from '../db/sql.js';

// The fan-out in one statement, as pieces over named parameters: the dispatcher's own fan-out
// (fan-out.ts) and the hand-over to an idle dispatcher (hand-over.ts) read, number and dequeue
// events alike; only the hand-over leases some of the attempts it makes.

/** The parameters every one-statement fan-out takes. */
export const FAN_OUT_PARAMS = {
  /** Attempt ids brought for the attempts made: events whose attempts do not fit stay queued. */
  ids: textArray,
  now: timestamptz,
  /** `deliveriesCounter('')`: each attempt counts in its subscription's scope. */
  scopePrefix: text,
};

/** Attempt ids one fan-out of `batch` events brings: twice the batch, and never fewer than one event's worst case. */
export function idPoolFor(batch: number): number {
  return Math.max(2 * batch, 32);
}

/**
 * CTEs reading the oldest `batch` queued events and the attempts they make:
 * - ev: the oldest queued events (another dispatcher's are skipped);
 * - cand: one attempt per active subscription of the event's tenant that existed when the event
 *   happened, is not the subscription an operational event is about, and whose event types take
 *   it (`matchesEventType`, fan-out.ts, in SQL); each event and its subscriptions are looked up by
 *   key per queued event (OFFSET 0 keeps those lookups apart, whatever the statistics say);
 * - taken: the events, in order, whose attempts fit the ids brought (the rest stay queued; a
 *   queued id without its event makes none and is taken, so only dequeued);
 * - numbered: the attempts of the taken events, each with its place in the batch (`n`, its id's
 *   index) and in its tenant (`tenant_rank`).
 */
export function fanOutReadCtes(p: Refs<typeof FAN_OUT_PARAMS>, batch: Sql): Sql {
  return sql`ev AS MATERIALIZED (
  SELECT q.tenant_id, q.event_id FROM webhook_event_queue q ORDER BY q.event_id LIMIT ${batch} FOR UPDATE SKIP LOCKED
), cand AS MATERIALIZED (
  SELECT ev.event_id, e.tenant_id, e.type, s.id AS subscription_id
  FROM ev CROSS JOIN LATERAL (
    SELECT x.tenant_id, x.type, x.created_at, x.subject_subscription_id FROM webhook_events x
    WHERE x.tenant_id = ev.tenant_id AND x.id = ev.event_id OFFSET 0
  ) e CROSS JOIN LATERAL (
    SELECT y.id FROM webhook_subscriptions y
    WHERE y.tenant_id = e.tenant_id AND y.status = 'active' AND y.deleted_at IS NULL AND y.created_at <= e.created_at
      AND y.id IS DISTINCT FROM e.subject_subscription_id
      AND EXISTS (SELECT 1 FROM unnest(y.event_types) AS f(t)
        WHERE f.t = e.type OR (right(f.t, 2) = '.*' AND starts_with(e.type, left(f.t, -1))))
    OFFSET 0
  ) s
), sized AS (
  SELECT ev.event_id, sum(count(c.subscription_id)) OVER (ORDER BY ev.event_id) AS upto
  FROM ev LEFT JOIN cand c ON c.event_id = ev.event_id GROUP BY ev.event_id
), taken AS MATERIALIZED (
  SELECT event_id FROM sized WHERE upto <= cardinality(${p.ids}::text[])
), numbered AS MATERIALIZED (
  SELECT c.*, row_number() OVER (ORDER BY c.event_id, c.subscription_id) AS n,
    row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.event_id, c.subscription_id) AS tenant_rank
  FROM cand c WHERE c.event_id IN (SELECT event_id FROM taken)
)`;
}

/**
 * The CTE `attempts` over `numbered`: a first attempt, due now, with the id brought at its place;
 * `lease` adds the columns a leased queue row takes (`lease_token` and `leased_until`, null for an
 * attempt it does not lease).
 */
export function fanOutAttempts(p: Refs<typeof FAN_OUT_PARAMS>, lease?: Sql): Sql {
  return sql`attempts AS (
  SELECT (${p.ids}::text[])[x.n] AS id, x.tenant_id, x.subscription_id, x.event_id, x.type AS event_type,
    1 AS attempt, 0 AS retry_step, ${p.now}::timestamptz AS created_at, ${p.now}::timestamptz AS next_attempt_at,
    ${p.scopePrefix} || x.subscription_id AS scope${lease ?? sql``}
  FROM numbered x
)`;
}

/** The CTE `dequeued`: the taken events off the fan-out queue, found by the rows `ev` locked. */
export const DEQUEUE_TAKEN = sql`dequeued AS (
  DELETE FROM webhook_event_queue q USING ev
  WHERE q.tenant_id = ev.tenant_id AND q.event_id = ev.event_id AND ev.event_id IN (SELECT event_id FROM taken)
)`;
