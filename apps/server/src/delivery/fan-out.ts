import type { WebhookEventType } from '@customer-api/contract';
import type { Handle } from '../db/port.js';
import { int, rowOf, sql, statement, textArray, timestamptz } from '../db/sql.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { attemptInput, type NewAttempt, pendingAttempt } from './deliveries.repo.js';
import { ATTEMPT_PARAMS, insertAndCount, unnestAttempts } from './deliveries.sql.js';

/** True when a subscription's event type filters (`page.version.*` wildcard included) take `type`. */
export function matchesEventType(filters: readonly string[], type: WebhookEventType | string): boolean {
  return filters.some(
    (filter) => filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1))),
  );
}

/*
 * The pending events, oldest first, each with the active subscriptions of its tenant (a tenant has
 * at most a handful: the subscription cap). Read without locks: the claim below decides.
 */
const pendingStatement = statement({
  name: 'webhook_fan_out_pending',
  params: { batch: int },
  sql: (p) => sql`SELECT e.id, e.tenant_id AS "tenantId", e.type, e.created_at AS "createdAt",
  s.id AS "subscriptionId", s.event_types AS "eventTypes", s.created_at AS "subscribedAt"
FROM (SELECT id, tenant_id, type, created_at FROM webhook_events WHERE fanned_out_at IS NULL
  ORDER BY created_at, id LIMIT ${p.batch}) e
LEFT JOIN webhook_subscriptions s
  ON s.tenant_id = e.tenant_id AND s.status = 'active' AND s.deleted_at IS NULL
ORDER BY e.created_at, e.id`,
  row: rowOf<PendingRow>(),
});

/*
 * One statement: locks the events still pending (another dispatcher's are skipped, and one it has
 * fanned out meanwhile fails the recheck), inserts and counts the first attempts of exactly those
 * (deliveries.repo.ts) and marks them fanned out. Returns how many events it took.
 */
const fanOutStatement = statement({
  name: 'webhook_fan_out',
  params: { eventIds: textArray, now: timestamptz, ...ATTEMPT_PARAMS },
  sql: (p) => sql`WITH ev AS (
  SELECT id FROM webhook_events WHERE id = ANY (${p.eventIds}::text[]) AND fanned_out_at IS NULL
  ORDER BY id FOR UPDATE SKIP LOCKED
), attempts AS (
  SELECT a.* FROM ${unnestAttempts(p)} WHERE a.event_id IN (SELECT id FROM ev)
), ${insertAndCount()}, marked AS (
  UPDATE webhook_events SET fanned_out_at = ${p.now}::timestamptz WHERE id IN (SELECT id FROM ev)
)
SELECT count(*)::int AS n FROM ev`,
});

interface PendingRow {
  id: string;
  tenantId: string;
  type: WebhookEventType;
  createdAt: Date;
  subscriptionId: string | null;
  eventTypes: string[] | null;
  subscribedAt: Date | null;
}

/**
 * Turns up to `batch` outbox events into first delivery attempts, one per matching subscription
 * that existed when the event happened, and marks the events fanned out, in two round trips (a
 * read, then one statement that locks, inserts, counts and marks): an event is fanned out exactly
 * once, even with several dispatchers. Returns the pending events it found (0: none left).
 */
export async function fanOut(
  db: Handle,
  deps: { clock: Clock; ids: IdSource },
  batch = 100,
): Promise<number> {
  const pending = await db.all(pendingStatement, { batch });
  if (pending.length === 0) return 0;
  const events = new Set<string>();
  const attempts: NewAttempt[] = [];
  const now = deps.clock();
  for (const row of pending) {
    events.add(row.id);
    if (!row.subscriptionId || !row.eventTypes || !row.subscribedAt) continue;
    if (row.subscribedAt.getTime() > row.createdAt.getTime()) continue;
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
  await db.run(fanOutStatement, { eventIds: [...events], now, ...attemptInput(attempts) });
  return events.size;
}
