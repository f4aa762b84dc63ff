import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTestSettings } from '../../config.js';
import { createTestDatabase, type TestDatabase } from '../../test/test-database.js';
import { openDatabase } from '../database.js';
import { rowOf, sql, statement } from '../sql.js';
import { TenantShare } from '../tenant-share.js';

const settings = loadTestSettings();

/** A full collection, on demand (the flag only exposes `gc` to contexts made after it is set). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const backendSleeping = statement({
  name: 'pool_test_backend_sleeping',
  sql: () => sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`,
  row: rowOf<{ pid: number }>(),
});

describe.skipIf(!settings.databaseUrl)('the node-postgres pool', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(settings.databaseUrl);
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('opens every connection when warmed, and keeps them however long they sit idle', async () => {
    const database = await openDatabase({ databaseUrl: testDb.url, poolSize: 4 });
    const pool = database.pool;
    if (!pool) throw new Error('no pool');
    try {
      await expect(database.warm()).resolves.toBe(4);
      expect([pool.totalCount, pool.idleCount]).toEqual([4, 4]);
      // pg-pool closes an idle connection after its idle timeout (10 s by default) unless the pool
      // keeps a minimum: its timers are faked from here on, so a quiet minute can pass.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        // A burst takes the open connections: none has to be started for it.
        const backends = await Promise.all(
          Array.from({ length: 4 }, () => database.db.first(backendSleeping, {})),
        );
        expect(new Set(backends.map((row) => row?.pid)).size).toBe(4);
        expect(pool.totalCount).toBe(4);
        vi.advanceTimersByTime(60_000);
      } finally {
        vi.useRealTimers();
      }
      expect([pool.totalCount, pool.idleCount]).toEqual([4, 4]);
    } finally {
      await database.close();
    }
  });

  it("keeps nothing of the last result a tenant's statement returned, however large", async () => {
    const share = new TenantShare({ concurrency: 2, queueMs: 1000 });
    const tenant = testDb.database.forTenant(share, 'tenant_a');
    const big = statement({
      name: 'pool_test_big_rows',
      sql: () => sql`SELECT repeat('x', 100000) AS big FROM generate_series(1, 5)`,
    });
    // Half a megabyte of rows a time, read through the tenant's share.
    const rows: WeakRef<object>[] = [];
    for (let i = 0; i < 4; i += 1) rows.push(new WeakRef(await tenant.all(big, {})));
    // The connections are idle in the pool now; the rows were only ever the caller's.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(rows.map((row) => row.deref() === undefined)).toEqual([true, true, true, true]);
    expect(testDb.database.pool?.idleCount).toBeGreaterThan(0);
  });
});
