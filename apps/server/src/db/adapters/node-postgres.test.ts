import { once } from 'node:events';
import { type AddressInfo, createServer, connect as netConnect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTestSettings } from '../../config.js';
import { createTestDatabase, type TestDatabase } from '../../test/test-database.js';
import { openDatabase } from '../database.js';
import { isDatabaseUnavailable } from '../errors.js';
import { rowOf, sql, statement } from '../sql.js';
import { TenantShare } from '../tenant-share.js';

const settings = loadTestSettings();

/** A full collection, on demand (the flag only exposes `gc` to contexts made after it is set). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * A TCP relay to PostgreSQL whose `silence()` stops every byte both ways without closing anything:
 * a link lost between two hosts, as a peer sees it.
 */
async function silenceableRelay(target: URL): Promise<{ url: string; silence(): void; close(): void }> {
  const sockets: Socket[] = [];
  let silent = false;
  const server = createServer((inbound) => {
    const outbound = netConnect(Number(target.port || 5432), target.hostname);
    sockets.push(inbound, outbound);
    for (const [from, to] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => to.destroy());
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    silence: () => {
      silent = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
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

  it('gives up on a silent link after the statement timeout and a margin, as unavailable', async () => {
    const relay = await silenceableRelay(new URL(testDb.url as string));
    const database = await openDatabase({ databaseUrl: relay.url, poolSize: 2, statementTimeoutMs: 300 });
    const probe = statement({ name: 'pool_test_silent_link', sql: () => sql`SELECT 1 AS one` });
    try {
      await expect(database.db.first(probe, {})).resolves.toEqual({ one: 1 });
      relay.silence();
      const lost = await database.db.first(probe, {}).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(lost)).toBe(true);
      const ping = await database.ping().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isDatabaseUnavailable(ping)).toBe(true);
    } finally {
      relay.close();
      await database.close();
    }
  });
});
