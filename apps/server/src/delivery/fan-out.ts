import type { WebhookEventType } from '@customer-api/contract';
import type { Handle } from '../db/port.js';
import { int, rowOf, sql, statement, text, textArray, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { attemptInput, type NewAttempt, pendingAttempt, queueAttempts } from './attempts.repo.js';
import { ATTEMPT_PARAMS, insertAndCount, RELAXED_COMMIT, unnestAttempts } from './deliveries.sql.js';
import { groupBy } from './tenant-scope.js';

/** True when a subscription's event type filters (`page.version.*` wildcard included) take `type`. */
export function matchesEventType(filters: readonly string[], type: WebhookEventType | string): boolean {
  return filters.some(
    (filter) => filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1))),
  );
}

/*
 * The queued events, oldest first (their ids are UUIDv7s), each with the active subscriptions of
 * its tenant (a tenant has at most a handful: the subscription cap). Read without locks: the
 * statement below decides. A queued id without its event (never written so, but harmless) comes
 * back with a null type and is only dequeued. Events leased to a dispatcher that sends them first
 * (hand-over-lease.ts) are left alone until their lease runs out. On one server each event is
 * looked up by its key (`LATERAL`, kept apart by its `LIMIT`): joined plainly, the planner hashes
 * the whole event table whenever the batch looks small beside it (decision 0247). Citus refuses
 * that form across shards, and there each shard's table is a fraction of the whole: the cluster
 * keeps the plain join.
 */
function pendingStatement(byKey: boolean) {
  const events = byKey
    ? sql`LEFT JOIN LATERAL (SELECT e.id, e.type, e.created_at, e.subject_subscription_id FROM webhook_events e
  WHERE e.tenant_id = q.tenant_id AND e.id = q.event_id LIMIT 1) e ON true`
    : sql`LEFT JOIN webhook_events e ON e.tenant_id = q.tenant_id AND e.id = q.event_id`;
  return statement({
    name: byKey ? 'webhook_fan_out_pending' : 'webhook_fan_out_pending_joined',
    params: { batch: int, now: timestamptz },
    sql: (p) => sql`SELECT q.event_id AS id, q.tenant_id AS "tenantId", e.type, e.created_at AS "createdAt",
  e.subject_subscription_id AS "subjectId", s.id AS "subscriptionId", s.event_types AS "eventTypes", s.created_at AS "subscribedAt"
FROM (SELECT event_id, tenant_id FROM webhook_event_queue
  WHERE leased_until IS NULL OR leased_until <= ${p.now}::timestamptz ORDER BY event_id LIMIT ${p.batch}) q
${events}
LEFT JOIN webhook_subscriptions s
  ON e.id IS NOT NULL AND s.tenant_id = q.tenant_id AND s.status = 'active' AND s.deleted_at IS NULL
ORDER BY q.event_id`,
    row: rowOf<PendingRow>(),
  });
}
const pendingByKey = pendingStatement(true);
const pendingJoined = pendingStatement(false);

/*
 * One statement: locks the events still queued (another dispatcher's are skipped, and one it has
 * fanned out meanwhile is gone), inserts and counts the first attempts of exactly those
 * (attempts.repo.ts) and takes them off the queue, by where the lock found them (a locked row stays
 * put). Returns how many events it took. It commits relaxed (`RELAXED_COMMIT`): lost in a crash,
 * the events are still queued and fanned out again.
 */
const fanOutStatement = statement({
  name: 'webhook_fan_out',
  params: { tenantIds: textArray, eventIds: textArray, now: timestamptz, ...ATTEMPT_PARAMS },
  sql: (p) => sql`WITH ${RELAXED_COMMIT}, ev AS (
  SELECT q.tenant_id, q.event_id AS id, q.ctid AS at FROM webhook_event_queue q
    JOIN unnest(${p.tenantIds}::text[], ${p.eventIds}::text[]) AS k(tenant_id, event_id)
      ON q.tenant_id = k.tenant_id AND q.event_id = k.event_id
  WHERE q.leased_until IS NULL OR q.leased_until <= ${p.now}::timestamptz
  ORDER BY q.event_id FOR UPDATE OF q SKIP LOCKED
), attempts AS (
  SELECT a.* FROM ${unnestAttempts(p)} WHERE a.event_id IN (SELECT id FROM ev)
), ${insertAndCount()}, dequeued AS (
  DELETE FROM webhook_event_queue q WHERE q.ctid = ANY (ARRAY(SELECT at FROM ev))
)
SELECT count(*)::int AS n FROM ev CROSS JOIN relaxed`,
});

/*
 * The per-tenant fan-out's claim (decision 0233): takes one tenant's events off the queue and
 * answers those it took, in a transaction that then inserts their attempts. A concurrent fan-out
 * of the same events waits for the row locks and then finds them gone, so each is fanned out once.
 * (Citus 13.2 fails the one-statement form above confined to a tenant: its modifying CTEs that
 * insert from another CTE stop with "missing data for column".)
 */
const dequeueTenantStatement = statement({
  name: 'webhook_fan_out_dequeue_tenant',
  params: { tenantId: text, eventIds: textArray },
  sql: (p) => sql`DELETE FROM webhook_event_queue q
WHERE q.tenant_id = ${p.tenantId} AND q.event_id = ANY (${p.eventIds}::text[])
RETURNING q.event_id AS "eventId"`,
  row: rowOf<{ eventId: string }>(),
});

interface PendingRow {
  id: string;
  tenantId: string;
  type: WebhookEventType | null;
  createdAt: Date | null;
  subjectId: string | null;
  subscriptionId: string | null;
  eventTypes: string[] | null;
  subscribedAt: Date | null;
}

/** How {@link fanOut} runs. */
export interface FanOutOptions {
  /**
   * One statement per tenant of the batch, all at once, instead of one for the batch (a dispatcher
   * on a Citus cluster, where a statement runs on one tenant's shard).
   */
  byTenant?: boolean;
  /** Told the tenants of the attempts made, when there are any. */
  madeFor?: (tenantIds: readonly string[]) => void;
}

/**
 * Turns up to `batch` outbox events into first delivery attempts, one per matching subscription
 * that existed when the event happened (never the subscription an operational event is about),
 * and takes the events off the fan-out queue, in two round trips (a read, then one statement that
 * locks, inserts, counts and dequeues): an event is fanned out exactly once, even with several
 * dispatchers. Returns the queued events it found (0: none left).
 */
export async function fanOut(
  db: Handle,
  deps: { clock: Clock; ids: IdSource },
  batch = 100,
  options: FanOutOptions = {},
): Promise<number> {
  const now = deps.clock();
  const pending = await db.all(options.byTenant ? pendingJoined : pendingByKey, { batch, now });
  if (pending.length === 0) return 0;
  const events = new Map<string, string>();
  const attempts: NewAttempt[] = [];
  for (const row of pending) {
    events.set(row.id, row.tenantId);
    if (!row.type || !row.createdAt || !row.subscriptionId || !row.eventTypes || !row.subscribedAt) continue;
    if (row.subscribedAt.getTime() > row.createdAt.getTime()) continue;
    if (row.subscriptionId === row.subjectId) continue;
    if (!matchesEventType(row.eventTypes, row.type)) continue;
    const target = {
      tenantId: row.tenantId,
      subscriptionId: row.subscriptionId,
      eventId: row.id,
      eventType: row.type,
    };
    attempts.push(
      pendingAttempt(deps.ids, target, { attempt: 1, retryStep: 0, createdAt: now, nextAttemptAt: now }),
    );
  }
  if (options.byTenant) {
    const attemptsOf = groupBy(attempts, (a) => a.eventId);
    const tenants = [...groupBy(events, ([, tenantId]) => tenantId)];
    // Each tenant's events in a transaction of their own: one worker down fails its tenants only.
    const done = await Promise.allSettled(
      tenants.map(([tenantId, ofTenant]) =>
        db.transaction(async (tx) => {
          const eventIds = ofTenant.map(([id]) => id);
          const taken = await tx.all(dequeueTenantStatement, { tenantId, eventIds });
          return queueAttempts(
            tx,
            taken.flatMap((t) => attemptsOf.get(t.eventId) ?? []),
          );
        }),
      ),
    );
    const made = done.flatMap((d) => (d.status === 'fulfilled' ? d.value : []));
    if (made.length > 0) options.madeFor?.([...new Set(made.map((a) => a.tenantId))]);
    const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
    if (failed) throw failed.reason;
    return events.size;
  }
  await db.run(fanOutStatement, {
    tenantIds: [...events.values()],
    eventIds: [...events.keys()],
    now,
    ...attemptInput(attempts),
  });
  if (attempts.length > 0) options.madeFor?.([...new Set(attempts.map((a) => a.tenantId))]);
  return events.size;
}
