import type { Db } from '../db/client.js';
import { rowQuery } from '../db/fast.js';

/**
 * Adds `delta` to a tenant's counter. Call it in the same transaction as the insert or delete it
 * counts: the row lock serialises concurrent writers, so the count stays exact.
 */
const ADJUST_COUNTER = `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, $2, $3)
  ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + EXCLUDED.count`;

export async function adjustCounter(db: Db, tenantId: string, scope: string, delta: number): Promise<void> {
  await rowQuery(db)('counter_adjust', ADJUST_COUNTER, [tenantId, scope, delta]);
}

const READ_COUNTER = 'SELECT count FROM tenant_counters WHERE tenant_id = $1 AND scope = $2';

/** Reads a counter (0 when never written): one primary-key lookup, however many rows it counts. */
export async function readCounter(db: Db, tenantId: string, scope: string): Promise<number> {
  const [row] = await rowQuery(db)<{ count: string | number }>('counter_read', READ_COUNTER, [
    tenantId,
    scope,
  ]);
  return row ? Number(row.count) : 0;
}
