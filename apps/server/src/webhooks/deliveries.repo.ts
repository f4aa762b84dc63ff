import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { webhookDeliveries, type webhookEvents, webhookSubscriptions } from '../db/schema/index.js';

/** A stored delivery attempt. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
/** A stored subscription (with its secrets: never log it, never return it). */
export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
/** A stored outbox event. */
export type EventRow = typeof webhookEvents.$inferSelect;

/** Counter scope of a subscription's delivery attempts (listWebhookDeliveries' totalCount). */
export const deliveriesCounter = (subscriptionId: string) => `webhook_deliveries:${subscriptionId}`;

/** Inserts delivery attempts. */
export async function insertDeliveries(tx: Db, rows: Array<typeof webhookDeliveries.$inferInsert>) {
  if (rows.length === 0) return [];
  return tx.insert(webhookDeliveries).values(rows).returning();
}

/** What an attempt's outcome writes onto its row. */
export type AttemptResult = Pick<
  DeliveryRow,
  'status' | 'responseStatus' | 'responseBody' | 'durationMs' | 'error' | 'attemptedAt' | 'nextAttemptAt'
>;

/**
 * Records an attempt's outcome if this dispatcher still holds its lease; returns false when the
 * lease was lost (it ran out and another dispatcher took the attempt over).
 */
export async function completeAttempt(
  tx: Db,
  id: string,
  token: string,
  result: AttemptResult,
): Promise<boolean> {
  const d = webhookDeliveries;
  const rows = await tx
    .update(d)
    .set({ ...result, leaseToken: null, leasedUntil: null })
    .where(and(eq(d.id, id), eq(d.leaseToken, token), eq(d.status, 'pending')))
    .returning({ id: d.id });
  return rows.length > 0;
}

/**
 * Records a success and ends the subscription's failure run in one statement (the hot path: one
 * round trip, one commit). False when the lease was lost.
 */
export async function completeSuccess(
  db: Db,
  id: string,
  token: string,
  result: Pick<DeliveryRow, 'responseStatus' | 'responseBody' | 'durationMs' | 'attemptedAt'>,
): Promise<boolean> {
  const at = result.attemptedAt?.toISOString() ?? null;
  // Both drivers (node-postgres, PGlite) answer `execute` with `{ rows }`.
  const res = (await db.execute(sql`
    WITH done AS (
      UPDATE ${webhookDeliveries}
      SET status = 'succeeded', response_status = ${result.responseStatus}, response_body = ${result.responseBody},
        duration_ms = ${result.durationMs}, error = NULL, attempted_at = ${at}::timestamptz,
        next_attempt_at = NULL, lease_token = NULL, leased_until = NULL
      WHERE id = ${id} AND lease_token = ${token} AND status = 'pending'
      RETURNING subscription_id
    ), cleared AS (
      UPDATE ${webhookSubscriptions} SET failing_since = NULL, updated_at = ${at}::timestamptz
      WHERE id IN (SELECT subscription_id FROM done) AND failing_since IS NOT NULL
    )
    SELECT count(*)::int AS n FROM done`)) as unknown as { rows: Array<{ n: number }> };
  return Number(res.rows[0]?.n ?? 0) > 0;
}

/** Starts (or continues) a subscription's failure run; returns when it started and the status. */
export async function markFailing(
  tx: Db,
  subscriptionId: string,
  now: Date,
): Promise<Pick<SubscriptionRow, 'failingSince' | 'status'> | undefined> {
  const s = webhookSubscriptions;
  const [row] = await tx
    .update(s)
    .set({ failingSince: sql`coalesce(${s.failingSince}, ${now.toISOString()}::timestamptz)` })
    .where(eq(s.id, subscriptionId))
    .returning({ failingSince: s.failingSince, status: s.status });
  return row;
}

/**
 * Disables a subscription and closes its queued attempts as failed, in the caller's transaction.
 * Attempts being sent right now keep their lease and are recorded by their dispatcher; one whose
 * dispatcher died is closed unsent when it is next claimed.
 */
export async function disableSubscription(
  tx: Db,
  subscriptionId: string,
  reason: string,
  now: Date,
  extra: { deletedAt?: Date } = {},
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(webhookSubscriptions)
    .set({ status: 'disabled', disabledReason: reason, updatedAt: now, ...extra })
    .where(eq(webhookSubscriptions.id, subscriptionId))
    .returning();
  await tx
    .update(webhookDeliveries)
    .set({
      status: 'failed',
      error: `Not sent: the subscription was disabled (${reason}).`,
      nextAttemptAt: null,
      leaseToken: null,
      leasedUntil: null,
    })
    .where(
      and(
        eq(webhookDeliveries.subscriptionId, subscriptionId),
        eq(webhookDeliveries.status, 'pending'),
        or(isNull(webhookDeliveries.leasedUntil), lte(webhookDeliveries.leasedUntil, now)),
      ),
    );
  return row;
}
