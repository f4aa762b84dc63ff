import type { Handle } from '../db/port.js';
import { int, raw, sql, statement, text, textArray, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { attemptInput } from './attempts.repo.js';
import { ATTEMPT_PARAMS, insertAndCount, RELAXED_COMMIT, unnestAttempts } from './deliveries.sql.js';
import {
  FIRST_ATTEMPTS,
  HAND_OVER_ATTEMPTS,
  HAND_OVER_BATCH,
  HAND_OVER_PARAMS,
  type HandedOver,
  type HandOverRequest,
  oldestQueued,
} from './hand-over.js';
import { type Claimed, readTarget, sendingColumns } from './lease.repo.js';
import type { DispatcherLog, QueuedAttempt } from './types.js';

/** Longest a leased hand-over's write waits for the first of its exchanges to end. */
export const WRITE_WAIT_MS = 50;

/*
 * The first half of an idle dispatcher's hand-over (decision 0250): leases the oldest queued events
 * whose first attempts it can send at once, and reads what those attempts are sent to and send,
 * without writing them:
 * - ev: the oldest queued events no other dispatcher holds (`oldestQueued`, hand-over.ts);
 * - cand: the events' first attempts, as the fan-out makes them ({@link FIRST_ATTEMPTS});
 * - sized, taken: per tenant, its events in order while they fit the room, the tenant's share and
 *   the most attempts a hand-over makes, up to its first event with a throttled subscription (a
 *   throttled attempt waits for its turn in the delivery queue, so its event is fanned out the
 *   usual way);
 * - leased: the taken events, leased to the caller until the attempts' lease ends.
 * Answers one row per attempt, numbered (`n`), with its targets (one row of nulls when none), each
 * with how many events were queued (`queuedEvents`) and the taken events' keys; the attempts get
 * their ids from the caller once they are back. Committed relaxed: lost in a crash, the events are
 * only queued again.
 */
const leaseStatement = statement({
  name: 'webhook_hand_over_lease',
  params: { ...HAND_OVER_PARAMS, attempts: int },
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ${oldestQueued(p)}, ${FIRST_ATTEMPTS}, sized AS (
  SELECT ev.event_id, ev.tenant_id,
    sum(count(c.subscription_id)) OVER (ORDER BY ev.event_id) AS upto,
    sum(count(c.subscription_id)) OVER (PARTITION BY ev.tenant_id ORDER BY ev.event_id) AS tenant_upto,
    bool_or(bool_or(coalesce(c.throttled, false))) OVER (PARTITION BY ev.tenant_id ORDER BY ev.event_id) AS throttled
  FROM ev LEFT JOIN cand c ON c.event_id = ev.event_id GROUP BY ev.event_id, ev.tenant_id
), taken AS MATERIALIZED (
  SELECT event_id, tenant_id FROM sized
  WHERE upto <= least(${p.limit}::int, ${p.attempts}::int) AND tenant_upto <= ${p.tenantCap}::int AND NOT throttled
), leased AS (
  UPDATE webhook_event_queue q SET lease_token = ${p.token}, leased_until = ${p.leasedUntil}::timestamptz
  FROM taken t WHERE q.tenant_id = t.tenant_id AND q.event_id = t.event_id
  RETURNING q.tenant_id, q.event_id
), numbered AS (
  SELECT c.*, row_number() OVER (ORDER BY c.event_id, c.subscription_id) AS n
  FROM cand c WHERE c.event_id IN (SELECT event_id FROM taken)
), keys AS (
  SELECT count(*)::int AS "takenEvents", array_agg(tenant_id ORDER BY event_id) AS "eventTenantIds",
    array_agg(event_id ORDER BY event_id) AS "eventIds"
  FROM leased
)
SELECT (SELECT count(*) FROM ev)::int AS "queuedEvents", k.*,
  x.n, x.tenant_id AS "tenantId", x.subscription_id AS "subscriptionId",
  x.event_id AS "eventId", x.type AS "eventType", ${sendingColumns()}
FROM relaxed CROSS JOIN keys k
LEFT JOIN numbered x ON true
LEFT JOIN webhook_subscriptions s ON s.tenant_id = x.tenant_id AND s.id = x.subscription_id
LEFT JOIN webhook_events e ON e.tenant_id = x.tenant_id AND e.id = x.event_id
ORDER BY x.n`,
});

/*
 * The second half, run while the attempts are being sent: writes the attempts the first half read,
 * leased to the caller as a claim leaves them (deliveries.sql.ts), for the events it still holds,
 * and takes those events off the queue. Answers the events written. Committed relaxed.
 */
const writeStatement = statement({
  name: 'webhook_hand_over_write',
  params: {
    eventTenantIds: textArray,
    eventIds: textArray,
    token: text,
    leasedUntil: timestamptz,
    ...ATTEMPT_PARAMS,
  },
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ev AS MATERIALIZED (
  SELECT q.tenant_id, q.event_id, q.ctid AS at FROM webhook_event_queue q
    JOIN unnest(${p.eventTenantIds}::text[], ${p.eventIds}::text[]) AS k(tenant_id, event_id)
      ON q.tenant_id = k.tenant_id AND q.event_id = k.event_id
  WHERE q.lease_token = ${p.token}
  FOR UPDATE OF q
), attempts AS (
  SELECT a.*, ${p.token}::text AS lease_token, ${p.leasedUntil}::timestamptz AS leased_until
  FROM ${unnestAttempts(p)} WHERE (a.tenant_id, a.event_id) IN (SELECT tenant_id, event_id FROM ev)
), ${insertAndCount(raw(''), { leased: true })}, dequeued AS (
  DELETE FROM webhook_event_queue q WHERE q.ctid = ANY (ARRAY(SELECT at FROM ev))
)
SELECT ev.event_id AS "eventId" FROM ev CROSS JOIN relaxed`,
});

/** What the first half of a leased hand-over took. */
export interface LeasedHandOver {
  /** Events queued and not held by another dispatcher, among the oldest looked at. */
  queued: number;
  /** The events leased, by key. */
  events: { tenantIds: string[]; ids: string[] };
  /** Their first attempts, with their targets, to send now; none of them is written yet. */
  claimed: Claimed[];
}

/**
 * Leases the oldest queued events whose first attempts fit the caller's room and share and reads
 * those attempts' targets, writing only the leases, in one round trip. The attempts are sent before
 * {@link writeHandOver} writes them (decision 0250). No event is taken when the oldest cannot be
 * sent so (`queued` > 0 with no event): the caller then hands over as `handOver` does.
 */
export async function leaseHandOver(
  db: Handle,
  deps: { clock: Clock; ids: IdSource },
  request: HandOverRequest,
): Promise<LeasedHandOver> {
  const now = deps.clock();
  const rows = await db.all(leaseStatement, {
    attempts: HAND_OVER_ATTEMPTS,
    now,
    token: request.token,
    leasedUntil: request.leasedUntil,
    limit: request.limit,
    tenantCap: request.tenantCap,
  });
  const first = rows[0];
  const claimed = rows
    .filter((r) => r.n !== null && r.n !== undefined)
    .map((r): Claimed => {
      const row: QueuedAttempt = {
        id: deps.ids('whdel'),
        tenantId: String(r.tenantId),
        subscriptionId: String(r.subscriptionId),
        eventId: String(r.eventId),
        eventType: r.eventType as QueuedAttempt['eventType'],
        attempt: 1,
        retryStep: 0,
        status: 'pending',
        responseStatus: null,
        responseBody: null,
        durationMs: null,
        error: null,
        createdAt: now,
        attemptedAt: null,
        nextAttemptAt: now,
        leaseToken: request.token,
        leasedUntil: request.leasedUntil,
        turnAt: null,
        queueAt: null,
      };
      return { row, target: readTarget(r) };
    });
  return {
    queued: Number(first?.queuedEvents ?? 0),
    events: {
      tenantIds: (first?.eventTenantIds as string[] | null) ?? [],
      ids: (first?.eventIds as string[] | null) ?? [],
    },
    claimed,
  };
}

/**
 * Writes the attempts of a {@link leaseHandOver}, leased to the caller, and dequeues their events,
 * for the events the caller still holds; answers the ids of the events written.
 */
export async function writeHandOver(
  db: Handle,
  leased: LeasedHandOver,
  request: Pick<HandOverRequest, 'token' | 'leasedUntil'>,
): Promise<Set<string>> {
  const rows = await db.all(writeStatement, {
    eventTenantIds: leased.events.tenantIds,
    eventIds: leased.events.ids,
    token: request.token,
    leasedUntil: request.leasedUntil,
    ...attemptInput(leased.claimed.map((c) => c.row)),
  });
  return new Set(rows.map((r) => String(r.eventId)));
}

/** What sending a hand-over first needs besides the database. */
export interface SendFirstDeps {
  clock: Clock;
  ids: IdSource;
  log: DispatcherLog;
  /** False once the dispatcher stops: a failed write is then not logged. */
  running: () => boolean;
}

/**
 * An idle dispatcher's hand-over whose attempts are sent before they are written (decision 0250):
 * {@link leaseHandOver}, then {@link writeHandOver} once the first of the attempts' exchanges ends
 * (so that the database does not compete with the requests on their way), at the latest after
 * {@link WRITE_WAIT_MS}. Each attempt carries that write: its outcome is recorded after it.
 * Undefined when the oldest queued event cannot be sent first (the caller hands over as
 * `handOver` does); `more` when events are left queued.
 */
export async function sendFirstHandOver(
  db: Handle,
  deps: SendFirstDeps,
  request: HandOverRequest,
): Promise<(HandedOver & { batch: number; more: boolean }) | undefined> {
  const leased = await leaseHandOver(db, deps, request);
  const taken = leased.events.ids.length;
  if (taken === 0 && leased.queued > 0) return undefined;
  const { start, written } = writeLater(db, deps, leased, request);
  const claimed = leased.claimed.map((c) => ({
    ...c,
    written: { start, done: written.then((ids) => ids.has(c.row.eventId)) },
  }));
  return {
    events: taken,
    attempts: claimed.length,
    claimed,
    batch: HAND_OVER_BATCH,
    more: leased.queued > taken || leased.queued >= HAND_OVER_BATCH,
  };
}

/** The write of {@link sendFirstHandOver}, to start; it answers the events written (none when it failed, logged). */
function writeLater(
  db: Handle,
  deps: SendFirstDeps,
  leased: LeasedHandOver,
  request: HandOverRequest,
): { start: () => void; written: Promise<Set<string>> } {
  if (leased.events.ids.length === 0) return { start: () => {}, written: Promise.resolve(new Set()) };
  let start = () => {};
  const begun = new Promise<void>((resolve) => {
    start = resolve;
  });
  const timer = setTimeout(start, WRITE_WAIT_MS);
  timer.unref();
  const written = begun.then(async () => {
    clearTimeout(timer);
    try {
      return await writeHandOver(db, leased, request);
    } catch (err) {
      if (deps.running()) {
        deps.log.warn(
          { err, events: leased.events.ids.length },
          'webhook hand-over not written; its events are fanned out again',
        );
      }
      return new Set<string>();
    }
  });
  return { start, written };
}
