import type { Handle } from '../db/port.js';
import { int, type Refs, raw, type Sql, sql, statement, text, textArray, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { deliveriesCounter } from './attempts.repo.js';
import { insertAndCount, QUEUE_RETURNING, RELAXED_COMMIT } from './deliveries.sql.js';
import { type Claimed, TARGET_COLUMNS, toClaimed } from './lease.repo.js';

/** Events one hand-over takes at most. */
export const HAND_OVER_BATCH = 16;
/**
 * Attempts one hand-over makes at most (either kind: this one or hand-over-lease.ts's); a tenant
 * has at most 16 subscriptions, so 2 events always fit.
 */
export const HAND_OVER_ATTEMPTS = 32;

/** The parameters of both hand-overs (this one and hand-over-lease.ts's). */
export const HAND_OVER_PARAMS = {
  now: timestamptz,
  token: text,
  leasedUntil: timestamptz,
  limit: int,
  tenantCap: int,
};

/**
 * A CTE `ev`: the oldest {@link HAND_OVER_BATCH} queued events that no other dispatcher holds
 * (rows locked by another statement and unexpired leases are skipped), locked. The batch is written
 * in (not a parameter): the plan cached for the statement is then as cheap as one made for each
 * run, so PostgreSQL keeps it instead of planning every time.
 */
export function oldestQueued(p: Pick<Refs<typeof HAND_OVER_PARAMS>, 'now'>): Sql {
  return sql`ev AS MATERIALIZED (
  SELECT q.tenant_id, q.event_id FROM webhook_event_queue q
  WHERE q.leased_until IS NULL OR q.leased_until <= ${p.now}::timestamptz
  ORDER BY q.event_id LIMIT ${raw(String(HAND_OVER_BATCH))} FOR UPDATE SKIP LOCKED
)`;
}

/**
 * A CTE `cand` over a CTE `ev` of queued events (`tenant_id`, `event_id`): one first attempt per
 * active subscription of the event's tenant that existed when the event happened and whose event
 * types take it (the rule of `matchesEventType`, fan-out.ts, in SQL), never the subscription an
 * operational event is about; `throttled` when the subscription has a rate. Each event and its
 * subscriptions are looked up by key per queued event (`OFFSET 0` keeps those lookups apart).
 */
export const FIRST_ATTEMPTS = raw(`cand AS MATERIALIZED (
  SELECT ev.event_id, e.tenant_id, e.type, s.id AS subscription_id, s.throttled
  FROM ev CROSS JOIN LATERAL (
    SELECT x.tenant_id, x.type, x.created_at, x.subject_subscription_id FROM webhook_events x
    WHERE x.tenant_id = ev.tenant_id AND x.id = ev.event_id OFFSET 0
  ) e CROSS JOIN LATERAL (
    SELECT y.id, y.max_deliveries_per_second IS NOT NULL AS throttled FROM webhook_subscriptions y
    WHERE y.tenant_id = e.tenant_id AND y.status = 'active' AND y.deleted_at IS NULL AND y.created_at <= e.created_at
      AND y.id IS DISTINCT FROM e.subject_subscription_id
      AND EXISTS (SELECT 1 FROM unnest(y.event_types) AS f(t)
        WHERE f.t = e.type OR (right(f.t, 2) = '.*' AND starts_with(e.type, left(f.t, -1))))
    OFFSET 0
  ) s
)`);

/*
 * The fan-out of an idle dispatcher, from the queue to attempts it holds, in one statement:
 * - ev: the oldest queued events no other dispatcher holds ({@link oldestQueued});
 * - cand: the events' first attempts ({@link FIRST_ATTEMPTS});
 * - taken: the events, in order, whose attempts fit the ids brought ({@link HAND_OVER_ATTEMPTS}; the
 *   rest stay queued);
 * - chosen: the attempts leased at once: per tenant at most its share, in all at most the room;
 * - attempts, then inserted, queued and counted as every attempt is (deliveries.sql.ts), the
 *   chosen ones queued leased; dequeued: the events off the fan-out queue.
 * Answers one row per leased attempt with its targets (one row of nulls when none), each with how
 * many events were taken and attempts made. It commits relaxed ({@link RELAXED_COMMIT}): lost in a
 * crash, its events are still queued and are fanned out again.
 */
const handOverStatement = statement({
  name: 'webhook_fan_out_hand_over',
  params: { ...HAND_OVER_PARAMS, ids: textArray, scopePrefix: text },
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ${oldestQueued(p)}, ${FIRST_ATTEMPTS}, sized AS (
  SELECT ev.event_id, sum(count(c.subscription_id)) OVER (ORDER BY ev.event_id) AS upto
  FROM ev LEFT JOIN cand c ON c.event_id = ev.event_id GROUP BY ev.event_id
), taken AS MATERIALIZED (
  SELECT event_id FROM sized WHERE upto <= cardinality(${p.ids}::text[])
), numbered AS MATERIALIZED (
  SELECT c.*, row_number() OVER (ORDER BY c.event_id, c.subscription_id) AS n,
    row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.event_id, c.subscription_id) AS tenant_rank
  FROM cand c WHERE c.event_id IN (SELECT event_id FROM taken)
), chosen AS MATERIALIZED (
  SELECT n FROM numbered WHERE tenant_rank <= ${p.tenantCap}::int
  ORDER BY tenant_rank, event_id, subscription_id LIMIT ${p.limit}
), attempts AS (
  SELECT (${p.ids}::text[])[x.n] AS id, x.tenant_id, x.subscription_id, x.event_id, x.type AS event_type,
    1 AS attempt, 0 AS retry_step, ${p.now}::timestamptz AS created_at, ${p.now}::timestamptz AS next_attempt_at,
    ${p.scopePrefix} || x.subscription_id AS scope,
    CASE WHEN x.n IN (SELECT n FROM chosen) THEN ${p.token} END AS lease_token,
    CASE WHEN x.n IN (SELECT n FROM chosen) THEN ${p.leasedUntil}::timestamptz END AS leased_until
  FROM numbered x
), ${insertAndCount(sql`RETURNING *`, { leased: true, queuedReturning: QUEUE_RETURNING })}, dequeued AS (
  DELETE FROM webhook_event_queue q USING ev
  WHERE q.tenant_id = ev.tenant_id AND q.event_id = ev.event_id AND ev.event_id IN (SELECT event_id FROM taken)
)
SELECT (SELECT count(*) FROM taken)::int AS "takenEvents", (SELECT count(*) FROM numbered)::int AS "madeAttempts",
  ${TARGET_COLUMNS}
FROM relaxed
LEFT JOIN (SELECT * FROM queued WHERE lease_token IS NOT NULL) l ON true
LEFT JOIN inserted d ON d.tenant_id = l.tenant_id AND d.id = l.id
LEFT JOIN webhook_subscriptions s ON s.tenant_id = l.tenant_id AND s.id = l.subscription_id
LEFT JOIN webhook_events e ON e.tenant_id = l.tenant_id AND e.id = d.event_id`,
});

/** What the dispatcher asks of a hand-over: the room it has and the lease it takes. */
export interface HandOverRequest {
  token: string;
  leasedUntil: Date;
  /** Most attempts leased (the dispatcher's room). */
  limit: number;
  /** Most attempts of one tenant leased. */
  tenantCap: number;
}

/** What a hand-over did. */
export interface HandedOver {
  /** Queued events fanned out (and dequeued). */
  events: number;
  /** Attempts made, leased or not. */
  attempts: number;
  /** The attempts leased to the caller, with their targets. */
  claimed: Claimed[];
}

/**
 * Fans out up to {@link HAND_OVER_BATCH} queued events as `fanOut` does (fan-out.ts: the same
 * subscriptions, the same counters, exactly once) and leases the attempts that a claim with the
 * caller's room would take, in one round trip. Only for a dispatcher that holds nothing and whose
 * last claim found nothing due: then no older attempt waits, so new ones do not jump ahead.
 */
export async function handOver(
  db: Handle,
  deps: { clock: Clock; ids: IdSource },
  request: HandOverRequest,
): Promise<HandedOver> {
  const rows = await db.all(handOverStatement, {
    ids: Array.from({ length: HAND_OVER_ATTEMPTS }, () => deps.ids('whdel')),
    now: deps.clock(),
    token: request.token,
    leasedUntil: request.leasedUntil,
    limit: request.limit,
    tenantCap: request.tenantCap,
    scopePrefix: deliveriesCounter(''),
  });
  const first = rows[0];
  return {
    events: Number(first?.takenEvents ?? 0),
    attempts: Number(first?.madeAttempts ?? 0),
    claimed: rows.filter((r) => r.id !== null && r.id !== undefined).map(toClaimed),
  };
}
