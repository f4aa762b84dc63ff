import type { Handle } from '../db/port.js';
import { int, raw, sql, statement, text, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { deliveriesCounter } from './attempts.repo.js';
import { insertAndCount, QUEUE_RETURNING, RELAXED_COMMIT } from './deliveries.sql.js';
import { DEQUEUE_TAKEN, FAN_OUT_PARAMS, fanOutAttempts, fanOutReadCtes, idPoolFor } from './fan-out.sql.js';
import { type Claimed, TARGET_COLUMNS, toClaimed } from './lease.repo.js';

/** Events one hand-over takes at most. */
export const HAND_OVER_BATCH = 16;

/*
 * The fan-out of an idle dispatcher, from the queue to attempts it holds, in one statement: the
 * fan-out's reading CTEs (fan-out.sql.ts) over at most HAND_OVER_BATCH events, the batch written in
 * (not a parameter): the plan cached for the statement is then as cheap as one made for each run,
 * so PostgreSQL keeps it instead of planning every time; then
 * - chosen: the attempts leased at once: per tenant at most its share, in all at most the room;
 * - attempts, then inserted, queued and counted as every attempt is (deliveries.sql.ts), the
 *   chosen ones queued leased; dequeued: the events off the fan-out queue.
 * Answers one row per leased attempt with its targets (one row of nulls when none), each with how
 * many events were taken and attempts made. It commits relaxed ({@link RELAXED_COMMIT}): lost in a
 * crash, its events are still queued and are fanned out again.
 */
const handOverStatement = statement({
  name: 'webhook_fan_out_hand_over',
  params: {
    ...FAN_OUT_PARAMS,
    token: text,
    leasedUntil: timestamptz,
    limit: int,
    tenantCap: int,
  },
  sql: (
    p,
  ) => sql`WITH ${RELAXED_COMMIT}, ${fanOutReadCtes(p, raw(String(HAND_OVER_BATCH)))}, chosen AS MATERIALIZED (
  SELECT n FROM numbered WHERE tenant_rank <= ${p.tenantCap}::int
  ORDER BY tenant_rank, event_id, subscription_id LIMIT ${p.limit}
), ${fanOutAttempts(
    p,
    sql`,
    CASE WHEN x.n IN (SELECT n FROM chosen) THEN ${p.token} END AS lease_token,
    CASE WHEN x.n IN (SELECT n FROM chosen) THEN ${p.leasedUntil}::timestamptz END AS leased_until`,
  )}, ${insertAndCount(sql`RETURNING *`, { leased: true, queuedReturning: QUEUE_RETURNING })}, ${DEQUEUE_TAKEN}
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
  const ids = Array.from({ length: idPoolFor(HAND_OVER_BATCH) }, () => deps.ids('whdel'));
  const rows = await db.all(handOverStatement, {
    ids,
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
