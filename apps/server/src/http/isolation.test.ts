import { describe, expect, it } from 'vitest';
import { TenantShare } from '../db/tenant-share.js';
import { UNINDEXED_SEARCH_MAX_ROWS } from '../modules/assets/trash-search.js';
import { expectApiError } from '../test/http-cases.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { MAX_JSON_DEPTH } from './json-body.js';

// One tenant's share of the database: 2 units, and no queue, so going over is answered at once.
const share = new TenantShare({ concurrency: 2, queueMs: 0 });
const t = useTestApp({ tenantShare: share, env: { RATE_LIMIT_MAX: '5' } });

/** JSON text of an object nested `depth` levels (built as text: deep values overflow JSON.stringify). */
const nested = (depth: number): string => `${'{"v":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

const postLog = (payload: string) =>
  t.app.inject({
    method: 'POST',
    url: '/v0/account_logs',
    headers: { ...t.auth(), 'content-type': 'application/json' },
    payload: `{"source":"crm","domain":"deep.example","payload":${payload}}`,
  });

describe('a tenant’s share of the database', () => {
  it('answers 429 with details once the tenant holds its share, while another tenant is served', async () => {
    const other = await t.seed.tenant();
    // Tenant A's two units are held (as two slow statements would hold them).
    const held = await Promise.all([share.acquire(t.tenant.tenantId), share.acquire(t.tenant.tenantId)]);
    try {
      const refused = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
      const body = expectApiError(refused, 'RATE_LIMITED');
      expect(body.detail).toMatch(/already runs 2 database operations/);
      expect(body.details).toMatchObject({ limit: 2, remaining: 0, retryAfter: 1 });
      expect(refused.headers['retry-after']).toBe('1');

      const served = await t.app.inject({ url: '/v0/pages', headers: other.auth() });
      expect(served.statusCode, served.body).toBe(200);
    } finally {
      for (const release of held) release();
    }
    const again = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(again.statusCode, again.body).toBe(200);
  });
});

describe('request bodies that would break the server', () => {
  it(`accepts JSON nested ${MAX_JSON_DEPTH} levels and refuses one level more with 400`, async () => {
    // The body object itself is one level; the payload adds the rest.
    expect((await postLog(nested(MAX_JSON_DEPTH - 2))).statusCode).toBe(201);
    const res = await postLog(nested(MAX_JSON_DEPTH));
    const body = expectApiError(res, 'VALIDATION_ERROR');
    expect(body.detail).toMatch(/nested deeper than 64 levels/);
  });

  it('answers a payload nested 10,000 levels with 400, not 500, and brackets inside strings do not count', async () => {
    expectApiError(await postLog(nested(10_000)), 'VALIDATION_ERROR');
    expect((await postLog(JSON.stringify({ text: '['.repeat(5000) }))).statusCode).toBe(201);
  });

  it('names the reserved keys instead of calling the body invalid JSON', async () => {
    for (const payload of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v0/account_logs',
        headers: { ...t.auth(), 'content-type': 'application/json' },
        payload: `{"source":"crm","domain":"keys.example","payload":${payload}}`,
      });
      const body = expectApiError(res, 'VALIDATION_ERROR');
      expect(body.detail).toMatch(/"__proto__".*reserved/);
    }
    // A key that merely is called "constructor" is ordinary data.
    expect((await postLog('{"constructor":"Ferrari"}')).statusCode).toBe(201);
  });

  it('answers a path parameter over 100 characters with the error object about the path', async () => {
    const res = await t.app.inject({ url: `/v0/pages/page_${'a'.repeat(120)}`, headers: t.auth() });
    const body = expectApiError(res, 'VALIDATION_ERROR');
    expect(body.detail).toMatch(/longer than 100 characters/);
    expect(JSON.stringify(body)).not.toContain('FST_ERR');
  });
});

describe('callers without a valid key', () => {
  it('closes the connection after answering 401', async () => {
    const res = await t.app.inject({ url: '/v0/pages', headers: { 'x-api-key': 'cak_wrong' } });
    expectApiError(res, 'UNAUTHORIZED');
    expect(res.headers.connection).toBe('close');
  });

  it('refuses an address that spent its window before looking up its next key', async () => {
    const address = { remoteAddress: '203.0.113.7' };
    // RATE_LIMIT_MAX is 5: five wrong guesses are 401, the sixth finds the window spent.
    for (let i = 0; i < 6; i += 1) {
      const res = await t.app.inject({
        url: '/v0/pages',
        headers: { 'x-api-key': `cak_guess${i}` },
        ...address,
      });
      expectApiError(res, i < 5 ? 'UNAUTHORIZED' : 'RATE_LIMITED');
    }
    // A key never seen by this process would need a lookup; the spent address gets 429 first.
    const fresh = await t.seed.tenant();
    const res = await t.app.inject({ url: '/v0/pages', headers: fresh.auth(), ...address });
    expectApiError(res, 'RATE_LIMITED');
    expect(res.headers.connection).toBe('close');
    // Its key works from any other address.
    expect((await t.app.inject({ url: '/v0/pages', headers: fresh.auth() })).statusCode).toBe(200);
  });
});

describe('trash searches the index cannot serve', () => {
  async function trashMany(tenantId: string, count: number): Promise<void> {
    await query(
      t.database.db,
      `INSERT INTO assets (id, tenant_id, name, data_type, file_id, lifecycle_state, created_at, updated_at, trashed_at)
       SELECT 'asset_' || md5($1::text || n)::text, $1, 'name ' || n, 'image', 'file', 'active', now(), now(), now()
       FROM generate_series(1, $2::int) AS n`,
      [tenantId, count],
    );
    await query(
      t.database.db,
      `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, 'assets:trash', $2)`,
      [tenantId, count],
    );
  }
  const search = (query: string) =>
    t.app.inject({ url: `/v0/assets/trash?limit=5&query=${encodeURIComponent(query)}`, headers: t.auth() });

  it('searches a small trash for anything, a large one only by three letters or digits', async () => {
    await trashMany(t.tenant.tenantId, 50);
    expect((await search('%'.repeat(200))).json()).toMatchObject({ totalCount: 0 });
    expect((await search('e ')).json()).toMatchObject({ totalCount: 50 });

    const large = await t.seed.tenant();
    t.tenant = large;
    await trashMany(large.tenantId, UNINDEXED_SEARCH_MAX_ROWS + 1);
    for (const query of ['%'.repeat(200), 'e ', '12']) {
      const body = expectApiError(await search(query), 'VALIDATION_ERROR');
      expect(body.detail).toMatch(/at least three letters or digits/);
      expect(body.details).toEqual([
        { field: 'query', issues: [{ code: 'validation_failed', message: body.detail, path: ['query'] }] },
      ]);
    }
    const indexed = await search('name 1000');
    expect(indexed.statusCode, indexed.body).toBe(200);
    expect(indexed.json()).toMatchObject({ totalCount: 3 }); // 1000, 10000 and 10001
  });
});
