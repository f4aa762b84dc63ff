import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadTestSettings } from '../config.js';
import { openDatabase } from '../db/database.js';
import { readCounter } from '../lib/counters.js';
import { ACCOUNTS_COUNTER, EMPTY_ACCOUNTS_COUNTER } from '../modules/accounts/accounts.service.js';
import { isCitus } from '../test/citus.js';
import { query } from '../test/sql.js';
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
      keyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^cak_/),
      scopes: ['read'],
      expiresAt: null,
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

  it('keys list shows each key without its secret; keys revoke marks one revoked, once', async () => {
    const first = JSON.parse((await cli(['keys', 'create', '--tenant', 'listed'], env)).out);
    // A week from when the command ran: the clock read before and after it brackets that instant.
    const ranFrom = Date.now();
    const expiring = JSON.parse(
      (await cli(['keys', 'create', '--tenant', 'listed', '--scopes', 'read', '--expires-in', '7'], env)).out,
    );
    const ranTo = Date.now();
    expect(Date.parse(expiring.expiresAt)).toBeGreaterThanOrEqual(ranFrom + 7 * 86_400_000);
    expect(Date.parse(expiring.expiresAt)).toBeLessThanOrEqual(ranTo + 7 * 86_400_000);
    const listed = await cli(['keys', 'list', '--tenant', 'listed'], env);
    expect(listed.code, listed.err).toBe(0);
    const rows = listed.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows).toEqual([
      {
        keyId: first.keyId,
        prefix: first.apiKey.slice(0, 12),
        scopes: ['read', 'write'],
        multiTenant: false,
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
      },
      expect.objectContaining({ keyId: expiring.keyId, scopes: ['read'], expiresAt: expiring.expiresAt }),
    ]);
    for (const key of [first.apiKey, expiring.apiKey]) expect(listed.out).not.toContain(key.slice(12));
    const revoked = await cli(['keys', 'revoke', first.keyId], env);
    expect(revoked.code, revoked.err).toBe(0);
    expect(revoked.err).toContain('AUTH_CACHE_TTL_S (30 s)');
    const { revokedAt } = JSON.parse(revoked.out);
    expect(Date.parse(revokedAt)).toBeGreaterThanOrEqual(ranFrom);
    // Revoking again keeps the first time.
    expect(JSON.parse((await cli(['keys', 'revoke', first.keyId], env)).out).revokedAt).toBe(revokedAt);
    const after = (await cli(['keys', 'list', '--tenant', 'listed'], env)).out;
    expect(JSON.parse(after.split('\n')[0] ?? '').revokedAt).toBe(revokedAt);
  });

  it('keys commands reject unknown tenants, unknown ids and bad arguments', async () => {
    const unknown = await cli(['keys', 'list', '--tenant', 'nobody-by-that-name'], env);
    expect([unknown.code, unknown.err]).toEqual([1, 'No tenant named "nobody-by-that-name".\n']);
    const missing = await cli(['keys', 'revoke', 'key_doesnotexist'], env);
    expect([missing.code, missing.err]).toEqual([1, 'No key with id "key_doesnotexist".\n']);
    for (const args of [
      ['keys', 'revoke'],
      ['keys', 'list'],
      ['keys', 'rotate'],
      ['keys', 'create', '--tenant', 'x', '--expires-in', '0'],
      ['keys', 'create', '--tenant', 'x', '--expires-in', 'soon'],
      ['keys', 'create', '--tenant', 'x', '--expires-in', '4000'],
    ]) {
      const res = await cli(args, env);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.out).toBe('');
      expect(res.err).not.toMatch(/\n\s+at /);
    }
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
      const [stored] = await query<{ count: number }>(
        database.db,
        'SELECT count(*)::int AS count FROM accounts WHERE tenant_id = $1',
        [result.tenantId],
      );
      expect(stored?.count).toBe(4510);
      expect(await readCounter(database.db, result.tenantId, ACCOUNTS_COUNTER)).toBe(4510);
      expect(await readCounter(database.db, result.tenantId, EMPTY_ACCOUNTS_COUNTER)).toBe(4510);
      // The planner knows the table's new size (reltuples; PGlite has no autovacuum to update it).
      // On PostgreSQL autovacuum could also get there, but only a manual ANALYZE sets
      // last_analyze, which a session publishes as it ends: hence the wait.
      // On a Citus coordinator the statistics are the shards', on the workers.
      if (!(await isCitus(database.db)))
        await vi.waitFor(
          async () => {
            const [stats] = await query<{ reltuples: number; last_analyze: unknown }>(
              database.db,
              `SELECT c.reltuples::float8 AS reltuples, s.last_analyze
             FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
             WHERE s.relname = 'accounts'`,
            );
            expect(Number(stats?.reltuples)).toBeGreaterThanOrEqual(4510);
            if (settings.databaseUrl) expect(stats?.last_analyze ?? null).not.toBeNull();
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
        // The holder never lets go during this test: a CLI waiting for it would never answer.
        const res = await cli(['migrate'], env);
        expect(res.code).toBe(1);
        expect(res.err).toMatch(/in use by another process/);
      } finally {
        await holder.close();
      }
      expect((await cli(['migrate'], env)).code).toBe(0);
    },
    60_000,
  );
});
