import type { Handle } from '../db/port.js';
import { int, rowOf, sql, statement, text } from '../db/sql.js';

const adjust = statement({
  name: 'counter_adjust',
  params: { tenantId: text, scope: text, delta: int },
  sql: (
    p,
  ) => sql`INSERT INTO tenant_counters (tenant_id, scope, count) VALUES (${p.tenantId}, ${p.scope}, ${p.delta})
    ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + EXCLUDED.count`,
});

/**
 * Adds `delta` to a tenant's counter. Call it in the same transaction as the insert or delete it
 * counts: the row lock serialises concurrent writers, so the count stays exact.
 */
export async function adjustCounter(
  db: Handle,
  tenantId: string,
  scope: string,
  delta: number,
): Promise<void> {
  await db.run(adjust, { tenantId, scope, delta });
}

/** The counter read `readCounter` runs (the benchmarks send it directly too). */
export const readCounterStatement = statement({
  name: 'counter_read',
  params: { tenantId: text, scope: text },
  sql: (p) => sql`SELECT count FROM tenant_counters WHERE tenant_id = ${p.tenantId} AND scope = ${p.scope}`,
  row: rowOf<{ count: number }>(),
});

/** Reads a counter (0 when never written): one primary-key lookup, however many rows it counts. */
export async function readCounter(db: Handle, tenantId: string, scope: string): Promise<number> {
  return (await db.first(readCounterStatement, { tenantId, scope }))?.count ?? 0;
}
