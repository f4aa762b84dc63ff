import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';
import { TenantShare } from './tenant-share.js';

const settings = loadTestSettings();

/** A full collection, on demand (the flag only exposes `gc` to contexts made after it is set). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe.skipIf(!settings.databaseUrl)('a pooled PostgreSQL connection between checkouts', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(settings.databaseUrl);
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it("keeps nothing of the last result it returned, however large (a tenant's statements)", async () => {
    const share = new TenantShare({ concurrency: 2, queueMs: 1000 });
    testDb.database.useTenantShare(share);
    const pool = testDb.database.pool;
    if (!pool) throw new Error('no pool');
    // Half a megabyte of rows, read as a tenant's statement: through the share's checkout.
    const read = () => pool.query("SELECT repeat('x', 100000) AS big FROM generate_series(1, 5)");
    const rows: WeakRef<object>[] = [];
    for (let i = 0; i < 4; i += 1) rows.push(new WeakRef((await share.run('tenant_a', read)).rows));
    // The connections are idle in the pool now; the rows were only ever the caller's.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(rows.map((row) => row.deref() === undefined)).toEqual([true, true, true, true]);
    expect(pool.idleCount).toBeGreaterThan(0);
  });
});
