import { contract, type Deprecation, type OperationMeta, operation } from '@customer-api/contract';
import { type AppRoute, initContract } from '@ts-rest/core';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { registerDeprecation } from './deprecation.js';

const DEPRECATION: Deprecation = { since: '2027-01-15', sunset: '2027-07-15', replacement: 'listItems' };
const EXPECTED = { deprecation: '@1799971200', sunset: 'Thu, 15 Jul 2027 00:00:00 GMT' };

const c = initContract();
/** A test-only contract: one deprecated operation beside a current one. */
const testContract = c.router({
  getOldItem: {
    method: 'GET',
    path: '/v0/old-items/:item_id',
    responses: { 200: c.type<{ ok: true }>() },
    metadata: operation('Pages', 'read', { deprecated: DEPRECATION }),
  },
  listItems: {
    method: 'GET',
    path: '/v0/items',
    responses: { 200: c.type<{ ok: true }>() },
    metadata: operation('Pages', 'read'),
  },
});

async function testServer() {
  const app = Fastify();
  registerDeprecation(app, testContract);
  app.get('/v0/old-items/:item_id', async (request, reply) => {
    const { item_id } = request.params as { item_id: string };
    return item_id === 'gone' ? reply.code(404).send({ error: 'NOT_FOUND' }) : { ok: true };
  });
  app.get('/v0/items', async () => ({ ok: true }));
  await app.ready();
  return app;
}

describe('deprecated operations (test-only contract)', () => {
  it('answer with Deprecation and Sunset, on success and on error, for GET and HEAD', async () => {
    const app = await testServer();
    for (const [method, url] of [
      ['GET', '/v0/old-items/it_1'],
      ['GET', '/v0/old-items/gone'],
      ['HEAD', '/v0/old-items/it_1'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.headers, `${method} ${url}`).toMatchObject(EXPECTED);
    }
    await app.close();
  });

  it('leave every other operation and unknown routes alone', async () => {
    const app = await testServer();
    for (const url of ['/v0/items', '/v0/old-items', '/v0/nothing-here']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.headers.deprecation, url).toBeUndefined();
      expect(res.headers.sunset, url).toBeUndefined();
    }
    await app.close();
  });
});

// The real app, with one real operation deprecated for this file only (modules are per test file).
const getPage = contract.getPage as AppRoute;
const original = getPage.metadata as OperationMeta;
Object.assign(getPage, { metadata: { ...original, deprecated: DEPRECATION } });
afterAll(() => {
  Object.assign(getPage, { metadata: original });
});

describe('deprecated operations (the server app)', () => {
  const t = useTestApp();

  it("carry both headers on the operation's responses, a refused key's 401 included", async () => {
    const page = await t.seed.page(t.tenant);
    const ok = await t.app.inject({ method: 'GET', url: `/v0/pages/${page.pageId}`, headers: t.auth() });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toMatchObject(EXPECTED);
    const missing = await t.app.inject({ method: 'GET', url: '/v0/pages/pg_missing', headers: t.auth() });
    expect(missing.headers).toMatchObject(EXPECTED);
    const anonymous = await t.app.inject({ method: 'GET', url: `/v0/pages/${page.pageId}` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers).toMatchObject(EXPECTED);
  });

  it('leave the operations that are not deprecated alone', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v0/pages', headers: t.auth() });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});
