import type { Handle } from '../../db/port.js';
import { webhookDeliveries } from '../../db/schema/index.js';
import { columns, int, rowOf, sql, statement, text, timestamptz } from '../../db/sql.js';
import type { DeliveryRow } from '../../delivery/queue-control.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

// The delivery log as the API reads it (the engine writes it: delivery/attempts.repo.ts).

const DELIVERY = columns(webhookDeliveries);
const NEWEST_FIRST = sql`ORDER BY created_at DESC, id DESC`;

const deliveriesFirst = statement({
  name: 'webhook_deliveries_list_first',
  params: { tenantId: text, subscriptionId: text, take: int },
  sql: (p) => sql`SELECT ${DELIVERY} FROM webhook_deliveries
WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId}
${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<DeliveryRow>(),
});

const deliveriesAfter = statement({
  name: 'webhook_deliveries_list_after',
  params: { tenantId: text, subscriptionId: text, take: int, createdAt: timestamptz, id: text },
  sql: (p) => sql`SELECT ${DELIVERY} FROM webhook_deliveries
WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId}
AND ${keysetAfter(p)} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<DeliveryRow>(),
});

/** One keyset page of a tenant's subscription's delivery attempts, newest first. */
export function listDeliveries(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  take: number,
  after?: KeysetPosition,
): Promise<DeliveryRow[]> {
  return after
    ? db.all(deliveriesAfter, { tenantId, subscriptionId, take, createdAt: after.createdAt, id: after.id })
    : db.all(deliveriesFirst, { tenantId, subscriptionId, take });
}

const deliveryById = statement({
  name: 'webhook_delivery_by_id',
  params: { tenantId: text, subscriptionId: text, id: text },
  sql: (p) => sql`SELECT ${DELIVERY} FROM webhook_deliveries
WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId} AND id = ${p.id}`,
  row: rowOf<DeliveryRow>(),
});

/** A tenant's subscription's delivery attempt. */
export function findDelivery(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db.first(deliveryById, { tenantId, subscriptionId, id: deliveryId });
}

const maxAttempt = statement({
  name: 'webhook_delivery_last_attempt',
  params: { tenantId: text, subscriptionId: text, eventId: text },
  sql: (p) => sql`SELECT max(attempt) AS attempt FROM webhook_deliveries
WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId} AND event_id = ${p.eventId}`,
  row: rowOf<{ attempt: number | null }>(),
});

/** The highest attempt number of an event to a tenant's subscription (0 when none). */
export async function lastAttempt(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  eventId: string,
): Promise<number> {
  return (await db.first(maxAttempt, { tenantId, subscriptionId, eventId }))?.attempt ?? 0;
}

/** An event whose delivery to a subscription failed for good. */
export interface FailedEvent {
  eventId: string;
  eventType: DeliveryRow['eventType'];
  lastAttempt: number;
}

const failedSince = statement({
  name: 'webhook_deliveries_failed_since',
  params: { tenantId: text, subscriptionId: text, since: timestamptz },
  sql: (p) => sql`SELECT event_id AS "eventId", event_type AS "eventType", max(attempt)::int AS "lastAttempt"
FROM webhook_deliveries WHERE tenant_id = ${p.tenantId} AND subscription_id = ${p.subscriptionId}
GROUP BY event_id, event_type
HAVING bool_or(status = 'failed' and created_at >= ${p.since}::timestamptz)
  and not bool_or(status in ('succeeded', 'pending'))
ORDER BY event_id`,
  row: rowOf<FailedEvent>(),
});

/**
 * Events of a tenant's subscription with a failed attempt since `since` and, so far, neither a
 * successful attempt nor one still queued: the ones recovery sends again.
 */
export function failedEventsSince(
  db: Handle,
  tenantId: string,
  subscriptionId: string,
  since: Date,
): Promise<FailedEvent[]> {
  return db.all(failedSince, { tenantId, subscriptionId, since });
}
