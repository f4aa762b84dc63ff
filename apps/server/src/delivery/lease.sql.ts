import {
  type Input,
  int,
  intArray,
  type Refs,
  type Sql,
  sql,
  text,
  textArray,
  timestamptz,
} from '../db/sql.js';
import { QUEUE_RETURNING } from './deliveries.sql.js';
import { inTenant, type TenantScope } from './tenant-scope.js';

// The fair claim as pieces over named parameters: lease.repo.ts runs it alone, with the targets of
// its attempts, and after a batch of successes (`completeSuccessesCtes`, deliveries.sql.ts).

/** Attempts one dispatcher is sending right now, per subscription. */
export interface InFlight {
  tenantId: string;
  subscriptionId: string;
  count: number;
}

/** What a claim (`leaseDue`, lease.repo.ts) leases, and for whom. */
export interface LeaseRequest {
  /** Attempts due at or before this instant are claimable. */
  now: Date;
  leasedUntil: Date;
  token: string;
  /** Most attempts claimed (the dispatcher's free slots). */
  limit: number;
  /** Most attempts of one tenant in flight at once, counting `inFlight` (default: `limit`). */
  tenantCap?: number;
  /** The caller's attempts in flight: they count against their tenant's and subscription's share. */
  inFlight?: readonly InFlight[];
}

/** The parameters of {@link leaseUpdate}: a {@link LeaseRequest}, the caller's holdings one array per column. */
export const LEASE_PARAMS = {
  now: timestamptz,
  leasedUntil: timestamptz,
  token: text,
  limit: int,
  tenantCap: int,
  busyTenantIds: textArray,
  busySubscriptionIds: textArray,
  busyCounts: intArray,
};
export type LeaseParams = Refs<typeof LEASE_PARAMS>;

/**
 * The claim: one UPDATE of the delivery queue leasing due attempts to `p.token`, in steps:
 * - tenants: every tenant with a queued attempt and its earliest one, by a skip scan of the
 *   queue's tenant index (one index probe per tenant, however long its queue);
 * - chosen: tenants with room under the cap and an attempt due and not leased, least busy first,
 *   then the longest waiting; no more tenants than free slots, since each gets a slot first;
 * - pairs, heads: the chosen tenants' subscriptions with queued attempts (a skip scan within each
 *   tenant), their oldest claimable attempt and how many are claimable (read, not locked); per
 *   tenant only its `free` least busy subscriptions can win a slot below, so only those are read;
 * - quota: water-filling over the claimable attempts, without locking any: each slot goes to the
 *   subscription, then tenant, that would have the fewest in flight, so one tenant's or
 *   subscription's backlog never crowds out another; `quota` says how many each subscription wins;
 * - locked: that many of each subscription's oldest due attempts, `FOR UPDATE SKIP LOCKED`, so
 *   concurrent dispatchers take disjoint rows (a row leased meanwhile fails the recheck on its new
 *   version) and no row is locked that the claim does not take.
 * The UPDATE finds the locked rows by their `ctid` (a TID scan whatever the planner thinks of the
 * table's size); a row updated since it was locked no longer matches and is left out.
 */
export function leaseUpdate(p: LeaseParams, scope?: TenantScope): Sql {
  const d = inTenant('d', scope);
  const claimable = sql`d.next_attempt_at <= ${p.now}::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= ${p.now}::timestamptz)${d}`;
  return sql`UPDATE webhook_delivery_queue u SET lease_token = ${p.token}, leased_until = ${p.leasedUntil}::timestamptz
WHERE u.ctid = ANY (ARRAY(
  WITH RECURSIVE tenants AS (
    (SELECT d.tenant_id, d.next_attempt_at AS head FROM webhook_delivery_queue d
      WHERE true${d} ORDER BY d.tenant_id, d.next_attempt_at LIMIT 1)
    UNION ALL
    SELECT n.tenant_id, n.next_attempt_at FROM tenants t CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.next_attempt_at FROM webhook_delivery_queue d
      WHERE d.tenant_id > t.tenant_id${d}
      ORDER BY d.tenant_id, d.next_attempt_at LIMIT 1) n
  ),
  busy AS (SELECT * FROM unnest(${p.busyTenantIds}::text[], ${p.busySubscriptionIds}::text[], ${p.busyCounts}::int[]) AS b(tenant_id, subscription_id, used)),
  room AS (
    SELECT t.tenant_id, ${p.tenantCap}::int - coalesce((SELECT sum(b.used) FROM busy b WHERE b.tenant_id = t.tenant_id), 0)::int AS free
    FROM tenants t WHERE t.head <= ${p.now}::timestamptz
  ),
  chosen AS MATERIALIZED (
    SELECT r.tenant_id, r.free FROM room r CROSS JOIN LATERAL (
      SELECT d.next_attempt_at FROM webhook_delivery_queue d
      WHERE d.tenant_id = r.tenant_id AND ${claimable}
      ORDER BY d.next_attempt_at LIMIT 1) f
    WHERE r.free > 0
    ORDER BY r.free DESC, f.next_attempt_at, r.tenant_id LIMIT ${p.limit}
  ),
  pairs AS (
    SELECT s.tenant_id, s.subscription_id FROM chosen c CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.subscription_id FROM webhook_delivery_queue d
      WHERE d.tenant_id = c.tenant_id${d}
      ORDER BY d.subscription_id LIMIT 1) s
    UNION ALL
    SELECT n.tenant_id, n.subscription_id FROM pairs p CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.subscription_id FROM webhook_delivery_queue d
      WHERE d.tenant_id = p.tenant_id AND d.subscription_id > p.subscription_id${d}
      ORDER BY d.subscription_id LIMIT 1) n
  ),
  heads AS MATERIALIZED (
    SELECT p.tenant_id, p.subscription_id, coalesce(b.used, 0) AS sub_used, c.free, h.next_attempt_at AS head_at,
      row_number() OVER (PARTITION BY p.tenant_id ORDER BY coalesce(b.used, 0), h.next_attempt_at, p.subscription_id) AS pair_rank
    FROM pairs p JOIN chosen c ON c.tenant_id = p.tenant_id
    LEFT JOIN busy b ON b.subscription_id = p.subscription_id
    CROSS JOIN LATERAL (
      SELECT d.next_attempt_at FROM webhook_delivery_queue d
      WHERE d.tenant_id = p.tenant_id AND d.subscription_id = p.subscription_id AND ${claimable}
      ORDER BY d.next_attempt_at LIMIT 1) h
  ),
  slots AS (
    SELECT h.tenant_id, h.subscription_id, h.head_at, h.free, h.sub_used + k.n AS sub_load
    FROM heads h CROSS JOIN LATERAL (
      SELECT count(*)::int AS avail FROM (
        SELECT 1 FROM webhook_delivery_queue d
        WHERE d.tenant_id = h.tenant_id AND d.subscription_id = h.subscription_id AND ${claimable}
        LIMIT least(h.free, ${p.limit})) x) a
    CROSS JOIN LATERAL generate_series(1, a.avail) AS k(n)
    WHERE h.pair_rank <= h.free
  ),
  quota AS (
    SELECT tenant_id, subscription_id, count(*)::int AS n FROM (
      SELECT tenant_id, subscription_id, tenant_load FROM (
        SELECT tenant_id, subscription_id, head_at, sub_load,
          ${p.tenantCap}::int - free + row_number() OVER (PARTITION BY tenant_id ORDER BY sub_load, head_at, subscription_id) AS tenant_load
        FROM slots) s
      WHERE tenant_load <= ${p.tenantCap}::int
      ORDER BY tenant_load, head_at, subscription_id, sub_load LIMIT ${p.limit}) won
    GROUP BY tenant_id, subscription_id
  ),
  locked AS MATERIALIZED (
    SELECT l.ctid FROM quota q CROSS JOIN LATERAL (
      SELECT d.ctid FROM webhook_delivery_queue d
      WHERE d.tenant_id = q.tenant_id AND d.subscription_id = q.subscription_id AND ${claimable}
      ORDER BY d.next_attempt_at LIMIT q.n
      FOR UPDATE SKIP LOCKED) l
  )
  SELECT ctid FROM locked
))${inTenant('u', scope)}`;
}

/**
 * {@link leaseUpdate} as the CTE `leased`, answering the claimed queue rows whole with where each
 * now lies (`queue_at`).
 */
export function leaseCte(p: LeaseParams, scope?: TenantScope): Sql {
  return sql`leased AS (${leaseUpdate(p, scope)} ${QUEUE_RETURNING})`;
}

/** The values of {@link LEASE_PARAMS} for a claim. */
export function leaseInput(input: LeaseRequest): Input<typeof LEASE_PARAMS> {
  const inFlight = input.inFlight ?? [];
  return {
    now: input.now,
    leasedUntil: input.leasedUntil,
    token: input.token,
    limit: input.limit,
    tenantCap: input.tenantCap ?? input.limit,
    busyTenantIds: inFlight.map((f) => f.tenantId),
    busySubscriptionIds: inFlight.map((f) => f.subscriptionId),
    busyCounts: inFlight.map((f) => f.count),
  };
}
