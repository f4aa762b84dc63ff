import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limit.js';
import {
  corsHeaders,
  documentedResponseHeaders,
  expectReadableBy,
  list,
  OTHER_ORIGIN,
  PAGE_ORIGIN,
  useCorsTestApp,
} from '../test/cors.js';
import { expectApiError } from '../test/http-cases.js';
import { testConfig } from '../test/test-app.js';

const t = useCorsTestApp();

describe('responses to a listed origin', () => {
  it('name the origin and expose every response header the API documents', async () => {
    const res = await t.app.inject({
      url: '/v0/pages?limit=1',
      headers: { ...t.auth(), origin: PAGE_ORIGIN },
    });
    expect(res.statusCode).toBe(200);
    expectReadableBy(res, PAGE_ORIGIN);
    expect(list(res.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining([...documentedResponseHeaders]),
    );
  });

  it('keep the headers on a creation replayed for the same Idempotency-Key', async () => {
    const key = `cors-${Date.now()}`;
    const create = () =>
      t.app.inject({
        method: 'POST',
        url: '/v0/topics',
        headers: { ...t.auth(), origin: PAGE_ORIGIN, 'idempotency-key': key },
        payload: { title: 'From a page' },
      });
    const first = await create();
    const again = await create();
    expect(first.statusCode, first.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectReadableBy(first, PAGE_ORIGIN);
    expectReadableBy(again, PAGE_ORIGIN);
  });

  it('carry the headers on every error, so the page can read the error object', async () => {
    const origin = { origin: PAGE_ORIGIN };
    const readOnly = await t.tenant.key(['read']);
    const cases: Array<[LightMyRequestResponse, Parameters<typeof expectApiError>[1]]> = [
      [
        await t.app.inject({ url: '/v0/pages?limit=0', headers: { ...t.auth(), ...origin } }),
        'VALIDATION_ERROR',
      ],
      [await t.app.inject({ url: '/v0/pages', headers: origin }), 'UNAUTHORIZED'],
      [
        await t.app.inject({
          method: 'POST',
          url: '/v0/topics',
          headers: { ...t.auth(readOnly), ...origin },
          payload: { title: 'refused' },
        }),
        'FORBIDDEN',
      ],
      [await t.app.inject({ url: '/v0/nothing-here', headers: { ...t.auth(), ...origin } }), 'NOT_FOUND'],
      [
        await t.app.inject({ url: '/v0/pages/%E0%A4%A', headers: { ...t.auth(), ...origin } }),
        'VALIDATION_ERROR',
      ],
    ];
    for (const [res, code] of cases) {
      expectApiError(res, code);
      expectReadableBy(res, PAGE_ORIGIN);
    }
  });

  it('carry the headers on 429 once the key’s window is spent', async () => {
    let res: LightMyRequestResponse | undefined;
    for (let i = 0; i < 20 && res?.statusCode !== 429; i++)
      res = await t.app.inject({ url: '/v0/pages?limit=1', headers: { ...t.auth(), origin: PAGE_ORIGIN } });
    expectApiError(res as LightMyRequestResponse, 'RATE_LIMITED');
    expectReadableBy(res as LightMyRequestResponse, PAGE_ORIGIN);
    expect(res?.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('reach /openapi.json and the error pages too, keeping their own Vary', async () => {
    const document = await t.app.inject({ url: '/openapi.json', headers: { origin: PAGE_ORIGIN } });
    expect(document.statusCode).toBe(200);
    expectReadableBy(document, PAGE_ORIGIN);
    const page = await t.app.inject({
      url: '/errors/not_found',
      headers: { origin: PAGE_ORIGIN, accept: 'text/html' },
    });
    expect(page.statusCode).toBe(200);
    expect(list(page.headers.vary)).toEqual(['accept', 'origin']);
  });
});

describe('responses to another origin', () => {
  it('are served as before but carry no CORS header, so the browser keeps them from the page', async () => {
    const ok = await t.app.inject({
      url: '/v0/pages?limit=1',
      headers: { ...t.auth(), origin: OTHER_ORIGIN },
    });
    expect(ok.statusCode).toBe(200);
    expect(corsHeaders(ok)).toEqual([]);
    expect(list(ok.headers.vary)).toContain('origin');
    const error = await t.app.inject({
      url: '/v0/nothing-here',
      headers: { ...t.auth(), origin: OTHER_ORIGIN },
    });
    expectApiError(error, 'NOT_FOUND');
    expect(corsHeaders(error)).toEqual([]);
  });
});

describe('a server failing inside a request', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const config = testConfig({
      ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}),
      CORS_ALLOWED_ORIGINS: PAGE_ORIGIN,
    });
    const limiter = createRateLimiter(config.rateLimit);
    const failing: RateLimiter = {
      store: limiter.store,
      windowSeconds: limiter.windowSeconds,
      ready: () => limiter.ready(),
      consume: () => Promise.reject(new Error('counter store lost')),
      refund: async () => {},
      exhausted: () => false,
      close: () => limiter.close(),
    };
    app = await buildApp({ config, database: t.database, rateLimiter: failing });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('sends its 500 to a listed origin with the CORS headers', async () => {
    const res = await app.inject({ url: '/v0/pages?limit=1', headers: { ...t.auth(), origin: PAGE_ORIGIN } });
    expectApiError(res, 'INTERNAL');
    expectReadableBy(res, PAGE_ORIGIN);
  });
});
