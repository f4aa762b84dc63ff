import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTestSettings } from '../config.js';
import { toDomainError } from '../http/errors.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';
import { openDatabase } from './client.js';
import { isDatabaseUnavailable } from './errors.js';

const settings = loadTestSettings();

describe.skipIf(!settings.databaseUrl)('PostgreSQL connections lost while checked out', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(settings.databaseUrl);
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('do not crash the process: the transaction fails as unavailable and the pool recovers', async () => {
    const { db } = testDb.database;
    const admin = new pg.Client({ connectionString: testDb.url });
    await admin.connect();
    try {
      const failure = await db
        .transaction(async (tx) => {
          const result = (await tx.execute(sql`SELECT pg_backend_pid() AS pid`)) as unknown as {
            rows: Array<{ pid: number }>;
          };
          // The server terminates this backend while the transaction is idle between statements,
          // as a shutdown does (57P01): the client emits 'error' with no query running.
          await admin.query('SELECT pg_terminate_backend($1)', [result.rows[0]?.pid]);
          await new Promise((resolve) => setTimeout(resolve, 200));
          await tx.execute(sql`SELECT 1`);
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(isDatabaseUnavailable(failure)).toBe(true);
      await expect(testDb.database.ping()).resolves.toBeUndefined();
    } finally {
      await admin.end();
    }
  });
});

describe.skipIf(!settings.databaseUrl)('PostgreSQL statement timeout', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(settings.databaseUrl);
  });
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('cancels a statement that runs too long; the request gets 503 saying why, and the pool goes on', async () => {
    const database = await openDatabase({ databaseUrl: testDb.url, statementTimeoutMs: 200 });
    try {
      const failure = await database.db.execute(sql`SELECT pg_sleep(5)`).then(
        () => undefined,
        (err: unknown) => err,
      );
      const answer = toDomainError(failure);
      expect(answer.code).toBe('SERVICE_UNAVAILABLE');
      expect(answer.message).toMatch(/more database time than one request may use/);
      await expect(database.ping()).resolves.toBeUndefined();
    } finally {
      await database.close();
    }
  });
});

describe.skipIf(!settings.databaseUrl)('PostgreSQL pool at start and in quiet times', () => {
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
          Array.from({ length: 4 }, () => pool.query('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')),
        );
        expect(new Set(backends.map((result) => result.rows[0].pid)).size).toBe(4);
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
});
