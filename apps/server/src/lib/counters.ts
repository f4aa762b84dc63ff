import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { tenantCounters } from '../db/schema/index.js';

/**
 * Adds `delta` to a tenant's counter. Call it in the same transaction as the insert or delete it
 * counts: the row lock serialises concurrent writers, so the count stays exact.
 */
export async function adjustCounter(db: Db, tenantId: string, scope: string, delta: number): Promise<void> {
  await db
    .insert(tenantCounters)
    .values({ tenantId, scope, count: delta })
    .onConflictDoUpdate({
      target: [tenantCounters.tenantId, tenantCounters.scope],
      set: { count: sql`${tenantCounters.count} + ${delta}` },
    });
}

/** Reads a counter (0 when never written): one primary-key lookup, however many rows it counts. */
export async function readCounter(db: Db, tenantId: string, scope: string): Promise<number> {
  const rows = await db
    .select({ count: tenantCounters.count })
    .from(tenantCounters)
    .where(and(eq(tenantCounters.tenantId, tenantId), eq(tenantCounters.scope, scope)));
  return rows[0]?.count ?? 0;
}
