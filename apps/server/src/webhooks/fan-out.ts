import type { WebhookEventType } from '@customer-api/contract';
import type { Db } from '../db/client.js';
import { rowQuery } from '../db/fast.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import { deliveriesCounter } from './deliveries.repo.js';

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
const PENDING = `SELECT e.id, e.tenant_id AS "tenantId", e.type, e.created_at AS "createdAt",
  s.id AS "subscriptionId", s.event_types AS "eventTypes", s.created_at AS "subscribedAt"
FROM (SELECT id, tenant_id, type, created_at FROM webhook_events WHERE fanned_out_at IS NULL
  ORDER BY created_at, id LIMIT $1) e
LEFT JOIN webhook_subscriptions s
  ON s.tenant_id = e.tenant_id AND s.status = 'active' AND s.deleted_at IS NULL
ORDER BY e.created_at, e.id`;

/*
 * One statement: locks the events still pending (another dispatcher's are skipped, and one it has
 * fanned out meanwhile fails the recheck), inserts the first attempts of exactly those, counts them
 * per subscription (in scope order, so concurrent fan-outs cannot deadlock) and marks them fanned
 * out. Returns how many events it took.
 */
const FAN_OUT = `WITH ev AS (
  SELECT id FROM webhook_events WHERE id = ANY ($1::text[]) AND fanned_out_at IS NULL
  ORDER BY id FOR UPDATE SKIP LOCKED
), attempts AS (
  SELECT a.* FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
    AS a(id, tenant_id, subscription_id, event_id, event_type, scope)
  WHERE a.event_id IN (SELECT id FROM ev)
), inserted AS (
  INSERT INTO webhook_deliveries
    (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step, status, created_at, next_attempt_at)
  SELECT id, tenant_id, subscription_id, event_id, event_type, 1, 0, 'pending', $8::timestamptz, $8::timestamptz
  FROM attempts
), counted AS (
  INSERT INTO tenant_counters (tenant_id, scope, count)
  SELECT tenant_id, scope, count(*) FROM attempts GROUP BY tenant_id, scope ORDER BY tenant_id, scope
  ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + EXCLUDED.count
), marked AS (
  UPDATE webhook_events SET fanned_out_at = $8::timestamptz WHERE id IN (SELECT id FROM ev)
)
SELECT count(*)::int AS n FROM ev`;

interface PendingRow {
  id: string;
  tenantId: string;
  type: string;
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
export async function fanOut(db: Db, deps: { clock: Clock; ids: IdSource }, batch = 100): Promise<number> {
  const query = rowQuery(db);
  const pending = await query<PendingRow>('webhook_fan_out_pending', PENDING, [batch]);
  if (pending.length === 0) return 0;
  const events = new Set<string>();
  const a = { id: [] as string[], tenant: [] as string[], sub: [] as string[], event: [] as string[] };
  const types: string[] = [];
  const scopes: string[] = [];
  for (const row of pending) {
    events.add(row.id);
    if (!row.subscriptionId || !row.eventTypes || !row.subscribedAt) continue;
    if (row.subscribedAt.getTime() > row.createdAt.getTime()) continue;
    if (!matchesEventType(row.eventTypes, row.type)) continue;
    a.id.push(deps.ids('whdel'));
    a.tenant.push(row.tenantId);
    a.sub.push(row.subscriptionId);
    a.event.push(row.id);
    types.push(row.type);
    scopes.push(deliveriesCounter(row.subscriptionId));
  }
  const now = deps.clock().toISOString();
  await query('webhook_fan_out', FAN_OUT, [[...events], a.id, a.tenant, a.sub, a.event, types, scopes, now]);
  return events.size;
}
