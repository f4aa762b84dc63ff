import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from '../db/client.js';
import { rowQuery, selectList } from '../db/fast.js';
import { webhookDeliveries, webhookEvents, webhookSubscriptions } from '../db/schema/index.js';
import type { Target } from './deliver.js';
import {
  COMPLETE_SUCCESSES_CTES,
  type DeliveryRow,
  type EventRow,
  type SubscriptionRow,
  type SuccessColumns,
  successValues,
} from './deliveries.repo.js';

/** The columns of a subscription that sending an attempt reads (a claim loads only these). */
export const SENDING_SUBSCRIPTION_KEYS = [
  'id',
  'url',
  'status',
  'deletedAt',
  'secret',
  'previousSecret',
  'previousSecretExpiresAt',
] as const satisfies readonly (keyof SubscriptionRow)[];
/** A subscription as sending reads it. */
export type SendingSubscription = Pick<SubscriptionRow, (typeof SENDING_SUBSCRIPTION_KEYS)[number]>;

/** The columns of an event that sending an attempt reads (a claim loads only these). */
export const SENDING_EVENT_KEYS = [
  'id',
  'createdAt',
  'payload',
] as const satisfies readonly (keyof EventRow)[];
/** An event as sending reads it. */
export type SendingEvent = Pick<EventRow, (typeof SENDING_EVENT_KEYS)[number]>;

/** Attempts one dispatcher is sending right now, per subscription. */
export interface InFlight {
  tenantId: string;
  subscriptionId: string;
  count: number;
}

/** What {@link leaseDue} claims, and for whom. */
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

/*
 * One statement, in steps:
 * - tenants: every tenant with a pending attempt and its earliest one, by a skip scan of the
 *   pending-by-tenant index (one index probe per tenant, however long its queue);
 * - chosen: tenants with room under the cap and an attempt due and not leased, least busy first,
 *   then the longest waiting; no more tenants than free slots, since each gets a slot first;
 * - pairs, heads: the chosen tenants' subscriptions with pending attempts (a skip scan within each
 *   tenant) and their oldest claimable attempt; per tenant only its `free` least busy subscriptions
 *   can win a slot below, so only those are locked;
 * - locked: their oldest due attempts, `FOR UPDATE SKIP LOCKED`, so concurrent dispatchers take
 *   disjoint rows (a row leased meanwhile fails the recheck on its new version);
 * - picked: water-filling: each slot goes to the attempt whose subscription, then tenant, would
 *   have the fewest in flight, so one tenant's or subscription's backlog never crowds out another.
 * Rows locked but not picked are released when the statement commits.
 */
const LEASE = `UPDATE webhook_deliveries SET lease_token = $3, leased_until = $2::timestamptz
WHERE id = ANY (ARRAY(
  WITH RECURSIVE tenants AS (
    (SELECT tenant_id, next_attempt_at AS head FROM webhook_deliveries
      WHERE status = 'pending' ORDER BY tenant_id, next_attempt_at LIMIT 1)
    UNION ALL
    SELECT n.tenant_id, n.next_attempt_at FROM tenants t CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.tenant_id > t.tenant_id
      ORDER BY d.tenant_id, d.next_attempt_at LIMIT 1) n
  ),
  busy AS (SELECT * FROM unnest($6::text[], $7::text[], $8::int[]) AS b(tenant_id, subscription_id, used)),
  room AS (
    SELECT t.tenant_id, $5::int - coalesce((SELECT sum(b.used) FROM busy b WHERE b.tenant_id = t.tenant_id), 0)::int AS free
    FROM tenants t WHERE t.head <= $1::timestamptz
  ),
  chosen AS MATERIALIZED (
    SELECT r.tenant_id, r.free FROM room r CROSS JOIN LATERAL (
      SELECT d.next_attempt_at FROM webhook_deliveries d
      WHERE d.tenant_id = r.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= $1::timestamptz)
      ORDER BY d.next_attempt_at LIMIT 1) f
    WHERE r.free > 0
    ORDER BY r.free DESC, f.next_attempt_at, r.tenant_id LIMIT $4
  ),
  pairs AS (
    SELECT s.tenant_id, s.subscription_id FROM chosen c CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.subscription_id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.tenant_id = c.tenant_id
      ORDER BY d.subscription_id LIMIT 1) s
    UNION ALL
    SELECT n.tenant_id, n.subscription_id FROM pairs p CROSS JOIN LATERAL (
      SELECT d.tenant_id, d.subscription_id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.tenant_id = p.tenant_id AND d.subscription_id > p.subscription_id
      ORDER BY d.subscription_id LIMIT 1) n
  ),
  heads AS (
    SELECT p.tenant_id, p.subscription_id, coalesce(b.used, 0) AS sub_used, c.free,
      row_number() OVER (PARTITION BY p.tenant_id ORDER BY coalesce(b.used, 0), h.next_attempt_at, p.subscription_id) AS pair_rank
    FROM pairs p JOIN chosen c ON c.tenant_id = p.tenant_id
    LEFT JOIN busy b ON b.subscription_id = p.subscription_id
    CROSS JOIN LATERAL (
      SELECT d.next_attempt_at FROM webhook_deliveries d
      WHERE d.tenant_id = p.tenant_id AND d.subscription_id = p.subscription_id
        AND d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= $1::timestamptz)
      ORDER BY d.next_attempt_at LIMIT 1) h
  ),
  locked AS MATERIALIZED (
    SELECT l.id, l.tenant_id, l.subscription_id, l.next_attempt_at, h.sub_used, h.free
    FROM heads h CROSS JOIN LATERAL (
      SELECT d.id, d.tenant_id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.tenant_id = h.tenant_id AND d.subscription_id = h.subscription_id
        AND d.status = 'pending' AND d.next_attempt_at <= $1::timestamptz
        AND (d.leased_until IS NULL OR d.leased_until <= $1::timestamptz)
      ORDER BY d.next_attempt_at LIMIT least(h.free, $4)
      FOR UPDATE SKIP LOCKED) l
    WHERE h.pair_rank <= h.free
  ),
  ranked AS (
    SELECT id, tenant_id, next_attempt_at, free,
      sub_used + row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS sub_load
    FROM locked
  ),
  picked AS (
    SELECT id, next_attempt_at,
      $5::int - free + row_number() OVER (PARTITION BY tenant_id ORDER BY sub_load, next_attempt_at, id) AS tenant_load
    FROM ranked
  )
  SELECT id FROM picked WHERE tenant_load <= $5::int ORDER BY tenant_load, next_attempt_at, id LIMIT $4
))`;

const LEASE_DUE = `${LEASE} RETURNING ${selectList(webhookDeliveries)}`;

/** `alias."column" AS "prefix+key"` for the columns `keys` of a table (default: every column). */
function aliasedList(
  table: Table,
  alias: string,
  prefix: string,
  keys: readonly string[] = Object.keys(getTableColumns(table)),
): string {
  const columns = getTableColumns(table);
  return keys
    .map((key) => {
      const c = columns[key];
      if (!c) throw new Error(`no column ${key}`);
      return `${alias}.${pg.escapeIdentifier(c.name)} AS ${pg.escapeIdentifier(prefix + key)}`;
    })
    .join(', ');
}

/** The columns of a claimed attempt's row and of what it is sent to and sends. */
const TARGET_COLUMNS = `${aliasedList(webhookDeliveries, 'l', '')},
  ${aliasedList(webhookSubscriptions, 's', 's.', SENDING_SUBSCRIPTION_KEYS)},
  ${aliasedList(webhookEvents, 'e', 'e.', SENDING_EVENT_KEYS)}`;

/** The claim and what its attempts are sent to and send, in one round trip. */
const LEASE_DUE_WITH_TARGETS = `WITH leased AS (${LEASE} RETURNING *)
SELECT ${TARGET_COLUMNS}
FROM leased l LEFT JOIN webhook_subscriptions s ON s.id = l.subscription_id
LEFT JOIN webhook_events e ON e.id = l.event_id`;

/** {@link LEASE} with its parameters renumbered to start after `offset` others. */
const leaseAfter = (offset: number) => LEASE.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);

/*
 * A batch of successes recorded and the next claim made in one statement: one round trip and one
 * commit instead of two: {@link COMPLETE_SUCCESSES_CTES}, then `leased`, the claim.
 * Every CTE reads the statement's one snapshot, so the claim still sees the batch's attempts as
 * pending, but leased to this dispatcher (its lease is not over), so it never takes them again; the
 * caller's holdings leave them out (they are sent). Each row is a claimed attempt with its targets (one row
 * with null attempt columns when nothing was claimed); the first also carries the ids recorded.
 */
const COMPLETE_AND_LEASE = `WITH ${COMPLETE_SUCCESSES_CTES}, leased AS (${leaseAfter(6)} RETURNING *)
SELECT CASE WHEN row_number() OVER () = 1 THEN r.recorded END AS "recorded", ${TARGET_COLUMNS}
FROM (SELECT coalesce(array_agg(id), '{}') AS recorded FROM done) r
LEFT JOIN leased l ON true
LEFT JOIN webhook_subscriptions s ON s.id = l.subscription_id
LEFT JOIN webhook_events e ON e.id = l.event_id`;

const DELIVERY_KEYS = Object.keys(getTableColumns(webhookDeliveries));

/** A reader of the columns `keys` under `prefix` of a joined row, without the prefix. */
function part<T>(prefix: string, keys: readonly string[]): (row: Record<string, unknown>) => T | undefined {
  const pairs = keys.map((k) => [k, prefix + k] as const);
  const id = `${prefix}id`;
  // Undefined when the joined row is missing (a LEFT JOIN's nulls).
  return (row) => {
    if (row[id] === null || row[id] === undefined) return undefined;
    const out: Record<string, unknown> = {};
    for (const [key, column] of pairs) out[key] = row[column];
    return out as T;
  };
}

const deliveryPart = part<DeliveryRow>('', DELIVERY_KEYS);
const subscriptionPart = part<SendingSubscription>('s.', SENDING_SUBSCRIPTION_KEYS);
const eventPart = part<SendingEvent>('e.', SENDING_EVENT_KEYS);

/** A leased attempt with its subscription and event. */
export interface Claimed {
  row: DeliveryRow;
  target: Target;
}

/**
 * Leases up to `limit` due pending attempts to `token` until `leasedUntil`, fairly: round robin
 * across tenants and, within a tenant, across its subscriptions, never past `tenantCap` attempts
 * of one tenant in flight (see the statement). A leased row is not due until its lease runs out,
 * so no two dispatchers send one attempt at once.
 */
export async function leaseDue(db: Db, input: LeaseRequest): Promise<DeliveryRow[]> {
  if (input.limit <= 0) return [];
  return rowQuery(db)<DeliveryRow>('webhook_lease_due', LEASE_DUE, leaseValues(input));
}

/**
 * {@link leaseDue}, answering each attempt with its subscription and event (the dispatcher's claim:
 * one round trip instead of three).
 */
export async function leaseDueWithTargets(db: Db, input: LeaseRequest): Promise<Claimed[]> {
  if (input.limit <= 0) return [];
  const rows = await rowQuery(db)<Record<string, unknown>>(
    'webhook_lease_due_targets',
    LEASE_DUE_WITH_TARGETS,
    leaseValues(input),
  );
  return rows.map(toClaimed);
}

function toClaimed(r: Record<string, unknown>): Claimed {
  return {
    row: deliveryPart(r) as DeliveryRow,
    target: { subscription: subscriptionPart(r), event: eventPart(r) },
  };
}

/**
 * Records a batch of successes (as success-batch.ts does alone) and makes the next claim
 * ({@link leaseDueWithTargets}) in the same statement. `claim.inFlight` must leave out the batch's
 * attempts. Returns the ids recorded (one missing lost its lease) and the attempts claimed.
 */
export async function completeAndLease(
  db: Db,
  successes: SuccessColumns,
  claim: LeaseRequest,
): Promise<{ recorded: Set<string>; claimed: Claimed[] }> {
  const rows = await rowQuery(db)<Record<string, unknown>>('webhook_complete_and_lease', COMPLETE_AND_LEASE, [
    ...successValues(successes),
    ...leaseValues(claim),
  ]);
  const recorded = new Set<string>(
    (rows.find((r) => r.recorded !== null)?.recorded as string[] | undefined) ?? [],
  );
  const claimed = claim.limit > 0 ? rows.filter((r) => r.id !== null).map(toClaimed) : [];
  return { recorded, claimed };
}

function leaseValues(input: LeaseRequest): unknown[] {
  const inFlight = input.inFlight ?? [];
  return [
    input.now.toISOString(),
    input.leasedUntil.toISOString(),
    input.token,
    input.limit,
    input.tenantCap ?? input.limit,
    inFlight.map((f) => f.tenantId),
    inFlight.map((f) => f.subscriptionId),
    inFlight.map((f) => f.count),
  ];
}

const RELEASE = `UPDATE webhook_deliveries SET lease_token = NULL, leased_until = NULL
WHERE id = ANY ($1::text[]) AND lease_token = $2 AND status = 'pending'`;

/**
 * Gives back leases `token` holds on attempts it will not send (claimed ahead, then the dispatcher
 * stopped or they waited too long): they are claimable again at once instead of when the lease runs
 * out. An attempt whose lease was lost meanwhile is left alone.
 */
export async function releaseLeases(db: Db, ids: readonly string[], token: string): Promise<void> {
  if (ids.length === 0) return;
  await rowQuery(db)('webhook_release_leases', RELEASE, [ids, token]);
}
