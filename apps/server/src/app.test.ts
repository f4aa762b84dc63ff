import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { loadTestSettings } from './config.js';
import { expectApiError } from './test/http-cases.js';
import { TEST_BASE_URL, testConfig, useTestApp } from './test/test-app.js';
import { createTestDatabase } from './test/test-database.js';

const t = useTestApp();

describe('operational routes (no key needed)', () => {
  it('answers /healthz and /readyz', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const health = await t.app.inject({ url: '/healthz' });
    expect(health.json()).toEqual({ status: 'ok', version });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.headers['x-request-id']).toMatch(/^req_/);
    // Every answer, an error too, names the server's version.
    const missing = await t.app.inject({ url: '/v0/nothing-here' });
    for (const res of [health, ready, missing]) expect(res.headers.server).toBe(`customer-api/${version}`);
  });

  it("serves the contract's committed OpenAPI document", async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    const path = createRequire(import.meta.url).resolve('@customer-api/contract/openapi.json');
    // As committed, but naming this server (its BASE_URL) instead of the `{baseUrl}` variable.
    const committed = JSON.parse(readFileSync(path, 'utf8'));
    expect(committed.servers[0].url).toBe('{baseUrl}');
    expect(res.json()).toEqual({
      ...committed,
      servers: [{ url: TEST_BASE_URL, description: 'This server.' }],
    });
    const docs = await t.app.inject({ url: '/docs' });
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.body).toContain('swagger-ui-bundle.js');
  });
});

describe('error object for every failure', () => {
  it('answers unknown routes and unknown methods with 404 NOT_FOUND', async () => {
    expectApiError(await t.app.inject({ url: '/nope' }), 'NOT_FOUND');
    expectApiError(await t.app.inject({ url: '/v0/nope', headers: t.auth() }), 'NOT_FOUND');
    expectApiError(await t.app.inject({ method: 'PUT', url: '/v0/pages', headers: t.auth() }), 'NOT_FOUND');
    expectApiError(await t.app.inject({ url: '/v0/no_such_collection', headers: t.auth() }), 'NOT_FOUND');
  });

  it('answers malformed JSON, wrong content types and oversized bodies with 400 VALIDATION_ERROR', async () => {
    const page = await t.seed.page(t.tenant);
    const url = `/v0/pages/${page.pageId}/archive`;
    const send = (payload: string | Buffer, contentType: string) =>
      t.app.inject({ method: 'POST', url, headers: { ...t.auth(), 'content-type': contentType }, payload });
    for (const bad of ['{', '{"a":', 'nul', '[1,', '"\\x"', '{"__proto__":{"x":1}}']) {
      const body = expectApiError(await send(bad, 'application/json'), 'VALIDATION_ERROR');
      expect(body.details).toEqual([expect.objectContaining({ field: 'body' })]);
    }
    expectApiError(await send('a=1', 'application/x-www-form-urlencoded'), 'VALIDATION_ERROR');
    expectApiError(await send('hello', 'text/plain'), 'VALIDATION_ERROR');
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    expectApiError(await send(big, 'application/json'), 'VALIDATION_ERROR');
    expect((await t.app.inject({ url: `/v0/pages/${page.pageId}`, headers: t.auth() })).json().status).toBe(
      'draft',
    );
  });

  it('answers malformed URLs, bad ids and odd query strings without a 500', async () => {
    const cases = [
      '/v0/pages/%E0%A4%A',
      '/v0/pages/%00',
      `/v0/pages/${'x'.repeat(300)}`,
      '/v0/pages?limit=1&limit=2',
      '/v0/pages?cursor=%20',
      '/v0/pages?limit[]=3',
      '/v0/pages?unknown=1',
      '/v0/pages/page_x/audiences/%F0%9F%98%80/messages',
      '/v0/pages/%20/audiences',
    ];
    for (const url of cases) {
      const res = await t.app.inject({ url, headers: t.auth() });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.json().requestId, url).toBe(res.headers['x-request-id']);
    }
    const badUrl = expectApiError(
      await t.app.inject({ url: '/v0/pages/%E0%A4%A', headers: t.auth() }),
      'VALIDATION_ERROR',
    );
    expect(badUrl.details).toEqual([expect.objectContaining({ field: 'path' })]);
  });

  it('stores no NUL characters: 400 instead of a database error', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v0/pages',
      headers: t.auth(),
      payload: { name: 'a\u0000b', title: 't', pageContext: 'c', brandId: 'b', pageType: 'custom' },
    });
    expectApiError(res, 'VALIDATION_ERROR');
  });

  it('answers an unexpected failure with 500 and fixed text, never the real message', async () => {
    const db = await createTestDatabase(loadTestSettings().databaseUrl);
    const app = await buildApp({
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      database: db.database,
    });
    app.get('/boom', async () => {
      throw new Error('secret internals');
    });
    try {
      const res = await app.inject({ url: '/boom' });
      const body = expectApiError(res, 'INTERNAL');
      expect(body.detail).toBe('An unexpected error occurred.');
      expect(res.body).not.toContain('secret');
    } finally {
      await app.close();
      await db.dispose();
    }
  });

  it('answers requests arriving during shutdown with 503 and the error object', async () => {
    const db = await createTestDatabase(loadTestSettings().databaseUrl);
    const app = await buildApp({
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      database: db.database,
    });
    let release: () => void = () => {};
    app.addHook('preClose', () => new Promise<void>((resolve) => (release = resolve)));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const closing = app.close();
    try {
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; requestId: string };
      expect(body.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers.get('x-request-id')).toBe(body.requestId);
    } finally {
      release();
      await closing;
      await db.dispose();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when the database is gone, and /readyz says so', async () => {
    const db = await createTestDatabase(loadTestSettings().databaseUrl);
    const app = await buildApp({
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      database: db.database,
    });
    try {
      await db.database.close();
      expectApiError(
        await app.inject({ url: '/v0/pages', headers: { 'x-api-key': 'cak_x' } }),
        'SERVICE_UNAVAILABLE',
      );
      expectApiError(await app.inject({ url: '/readyz' }), 'SERVICE_UNAVAILABLE');
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});

describe('request ids and rate-limit headers', () => {
  it('sends x-request-id on every response and RateLimit-* on every API response', async () => {
    const ok = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(ok.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    expect(ok.headers['ratelimit-limit']).toBe('1000');
    expect(Number(ok.headers['ratelimit-remaining'])).toBe(999);
    expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThan(0);
    const unauthorized = await t.app.inject({ url: '/v0/pages' });
    expect(unauthorized.headers['ratelimit-limit']).toBe('1000');
    const other = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(other.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
  });
});
