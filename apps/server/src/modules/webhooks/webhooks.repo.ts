import { and, count, desc, eq, isNull, max, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhookDeliveries, webhookSubscriptions } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';
import type { DeliveryRow, SubscriptionRow } from '../../webhooks/deliveries.repo.js';

/** Columns of a subscription that operations change. */
export type SubscriptionPatch = Partial<Omit<SubscriptionRow, 'id' | 'tenantId' | 'createdAt'>>;

/** Inserts a subscription. */
export async function insertSubscription(
  db: Db,
  row: typeof webhookSubscriptions.$inferInsert,
): Promise<SubscriptionRow> {
  const [inserted] = await db.insert(webhookSubscriptions).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Key space of the per-tenant subscription lock (an arbitrary constant: 'whsu'). */
const SUBSCRIPTION_LOCK_SPACE = 0x77687375;

/**
 * Serialises a tenant's subscription creates until the transaction ends, in every process: a
 * transaction-level advisory lock, so concurrent creates cannot all count below the cap.
 */
export async function lockTenantSubscriptions(tx: Db, tenantId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${SUBSCRIPTION_LOCK_SPACE}::int, hashtext(${tenantId}))`);
}

/** How many subscriptions a tenant has that are not deleted (disabled ones count). */
export async function countLiveSubscriptions(db: Db, tenantId: string): Promise<number> {
  const s = webhookSubscriptions;
  const [row] = await db
    .select({ n: count() })
    .from(s)
    .where(and(eq(s.tenantId, tenantId), isNull(s.deletedAt)));
  return row?.n ?? 0;
}

/** Finds a tenant's live (not deleted) subscription; `forUpdate` locks it. */
export async function findSubscription(
  db: Db,
  tenantId: string,
  id: string,
  forUpdate = false,
): Promise<SubscriptionRow | undefined> {
  const s = webhookSubscriptions;
  const query = db
    .select()
    .from(s)
    .where(and(eq(s.tenantId, tenantId), eq(s.id, id), isNull(s.deletedAt)));
  const rows = forUpdate ? await query.for('update') : await query;
  return rows[0];
}

/** One keyset page of a tenant's live subscriptions, newest first. */
export async function listSubscriptions(
  db: Db,
  tenantId: string,
  take: number,
  after?: KeysetPosition,
): Promise<SubscriptionRow[]> {
  const s = webhookSubscriptions;
  return db
    .select()
    .from(s)
    .where(
      and(
        eq(s.tenantId, tenantId),
        isNull(s.deletedAt),
        after ? keysetAfter(s.createdAt, s.id, after) : undefined,
      ),
    )
    .orderBy(desc(s.createdAt), desc(s.id))
    .limit(take);
}

/** Updates a subscription and returns it. */
export async function updateSubscription(
  db: Db,
  id: string,
  patch: SubscriptionPatch,
): Promise<SubscriptionRow> {
  const [row] = await db
    .update(webhookSubscriptions)
    .set(patch)
    .where(eq(webhookSubscriptions.id, id))
    .returning();
  if (!row) throw new Error(`subscription ${id} vanished during update`);
  return row;
}

/** One keyset page of a subscription's delivery attempts, newest first. */
export async function listDeliveries(
  db: Db,
  subscriptionId: string,
  take: number,
  after?: KeysetPosition,
): Promise<DeliveryRow[]> {
  const d = webhookDeliveries;
  return db
    .select()
    .from(d)
    .where(
      and(eq(d.subscriptionId, subscriptionId), after ? keysetAfter(d.createdAt, d.id, after) : undefined),
    )
    .orderBy(desc(d.createdAt), desc(d.id))
    .limit(take);
}

/** A subscription's delivery attempt. */
export async function findDelivery(
  db: Db,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  const d = webhookDeliveries;
  const rows = await db
    .select()
    .from(d)
    .where(and(eq(d.subscriptionId, subscriptionId), eq(d.id, deliveryId)));
  return rows[0];
}

/** The highest attempt number of an event to a subscription (0 when none). */
export async function lastAttempt(db: Db, subscriptionId: string, eventId: string): Promise<number> {
  const d = webhookDeliveries;
  const [row] = await db
    .select({ attempt: max(d.attempt) })
    .from(d)
    .where(and(eq(d.subscriptionId, subscriptionId), eq(d.eventId, eventId)));
  return row?.attempt ?? 0;
}

/** An event whose delivery to a subscription failed for good. */
export interface FailedEvent {
  eventId: string;
  eventType: DeliveryRow['eventType'];
  lastAttempt: number;
}

/**
 * Events with a failed attempt since `since` and, so far, neither a successful attempt nor one
 * still queued: the ones recovery sends again.
 */
export async function failedEventsSince(db: Db, subscriptionId: string, since: Date): Promise<FailedEvent[]> {
  const d = webhookDeliveries;
  return db
    .select({ eventId: d.eventId, eventType: d.eventType, lastAttempt: sql<number>`max(${d.attempt})::int` })
    .from(d)
    .where(eq(d.subscriptionId, subscriptionId))
    .groupBy(d.eventId, d.eventType)
    .having(
      sql`bool_or(${d.status} = 'failed' and ${d.createdAt} >= ${since.toISOString()}::timestamptz)
        and not bool_or(${d.status} in ('succeeded', 'pending'))`,
    )
    .orderBy(d.eventId);
}
