import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTestSettings } from '../config.js';
import { openDatabase } from '../db/client.js';
import { accounts } from '../db/schema/index.js';
import { readCounter } from '../lib/counters.js';
import { ACCOUNTS_COUNTER, EMPTY_ACCOUNTS_COUNTER } from '../modules/accounts/accounts.service.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';
import { runCli } from './cli.js';

const settings = loadTestSettings();

async function cli(argv: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    env: { LOG_LEVEL: 'silent', ...env },
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
  });
  return { code, out, err };
}

describe('customer-api CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  let testDb: TestDatabase | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'customer-api-cli-'));
    if (settings.databaseUrl) {
      testDb = await createTestDatabase(settings.databaseUrl);
      await testDb.database.close();
      env = { DATABASE_URL: testDb.url ?? '' };
    } else {
      env = { DATA_DIR: join(dir, 'data') };
    }
  });
  afterAll(async () => {
    await testDb?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('keys create prints one JSON line and reuses the tenant by name', async () => {
    const first = await cli(['keys', 'create', '--tenant', 'acme', '--scopes', 'read'], env);
    expect(first.code, first.err).toBe(0);
    const lines = first.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0] ?? '');
    expect(created).toEqual({
      tenantId: expect.stringMatching(/^tenant_/),
      apiKey: expect.stringMatching(/^cak_/),
      scopes: ['read'],
    });
    const second = JSON.parse((await cli(['keys', 'create', '--tenant', 'acme', '--multi-tenant'], env)).out);
    expect(second.tenantId).toBe(created.tenantId);
    expect(second.scopes).toEqual(['read', 'write']);
    expect(second.apiKey).not.toBe(created.apiKey);
  });

  it('rejects bad arguments and bad configuration with a clear message', async () => {
    expect((await cli(['keys', 'create'], env)).err).toContain('--tenant');
    expect((await cli(['keys', 'create', '--tenant', 'x', '--scopes', 'admin'], env)).err).toContain(
      '--scopes',
    );
    expect((await cli(['frobnicate'], env)).code).toBe(1);
    const badEnv = await cli(['migrate'], { ...env, PORT: 'x', RATE_LIMIT_MAX: '-1' });
    expect(badEnv.code).toBe(1);
    expect(badEnv.err).toContain('PORT=');
    expect(badEnv.err).toContain('RATE_LIMIT_MAX=');
  });

  it('seed adds demo data to a tenant', async () => {
    const res = await cli(['seed', '--tenant', 'seeded'], env);
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out)).toEqual({ tenantId: expect.stringMatching(/^tenant_/), pages: 3 });
  });

  it('seed --accounts adds accounts in batches and keeps the counters exact', async () => {
    const res = await cli(['seed', '--tenant', 'bulk', '--accounts', '4500'], env);
    expect(res.code, res.err).toBe(0);
    const result = JSON.parse(res.out);
    expect(result).toEqual({ tenantId: expect.stringMatching(/^tenant_/), accounts: 4500 });
    expect(res.err).toMatch(/accounts \[.*\] 100% \| 4500\/4500/);
    // A second run adds as many again (new domains), and the counters follow.
    expect(JSON.parse((await cli(['seed', '--tenant', 'bulk', '--accounts', '10'], env)).out).accounts).toBe(
      10,
    );
    const database = await openDatabase(
      settings.databaseUrl ? { databaseUrl: env.DATABASE_URL } : { dataDir: env.DATA_DIR },
    );
    try {
      const [stored] = await database.db
        .select({ count: sql<number>`count(*)::int` })
        .from(accounts)
        .where(eq(accounts.tenantId, result.tenantId));
      expect(stored?.count).toBe(4510);
      expect(await readCounter(database.db, result.tenantId, ACCOUNTS_COUNTER)).toBe(4510);
      expect(await readCounter(database.db, result.tenantId, EMPTY_ACCOUNTS_COUNTER)).toBe(4510);
      // The planner knows the table's new size (reltuples; PGlite has no autovacuum to update it).
      // On PostgreSQL autovacuum could also get there, but only a manual ANALYZE sets
      // last_analyze, which a session publishes as it ends: hence the wait.
      await vi.waitFor(
        async () => {
          const stats = (await database.db.execute(sql`
            SELECT c.reltuples::float8 AS reltuples, s.last_analyze
            FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE s.relname = 'accounts'`)) as unknown as {
            rows: Array<{ reltuples: number; last_analyze: unknown }>;
          };
          expect(Number(stats.rows[0]?.reltuples)).toBeGreaterThanOrEqual(4510);
          if (settings.databaseUrl) expect(stats.rows[0]?.last_analyze ?? null).not.toBeNull();
        },
        { timeout: 10_000, interval: 200 },
      );
    } finally {
      await database.close();
    }
    for (const bad of ['0', 'many', '1.5', '20000000']) {
      const rejected = await cli(['seed', '--accounts', bad], env);
      expect(rejected.code).toBe(1);
      expect(rejected.err).toContain('--accounts takes a whole number');
    }
  });

  it.skipIf(settings.databaseUrl)(
    'fails at once on a PGlite data directory another opener holds',
    async () => {
      const holder = await openDatabase({ dataDir: env.DATA_DIR });
      try {
        const started = Date.now();
        const res = await cli(['migrate'], env);
        expect(res.code).toBe(1);
        expect(res.err).toMatch(/in use by another process/);
        // It fails instead of waiting for the holder (which never lets go during this test).
        expect(Date.now() - started).toBeLessThan(60_000);
      } finally {
        await holder.close();
      }
      expect((await cli(['migrate'], env)).code).toBe(0);
    },
    60_000,
  );
});
