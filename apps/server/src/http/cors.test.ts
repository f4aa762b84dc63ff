import { createRequire } from 'node:module';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createRateLimiter, type RateLimiter } from '../rate-limit/rate-limit.js';
import { expectApiError } from '../test/http-cases.js';
import { testConfig, useTestApp } from '../test/test-app.js';

const PAGE_ORIGIN = 'https://pages.example.com';
const OTHER_ORIGIN = 'https://elsewhere.example.net';
const t = useTestApp({
  env: { CORS_ALLOWED_ORIGINS: `http://localhost:5173,${PAGE_ORIGIN}`, RATE_LIMIT_MAX: '12' },
});

interface Operation {
  parameters?: Array<{ $ref?: string; in?: string; name?: string }>;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: {
    parameters: Record<string, { in: string; name: string }>;
    responses: Record<string, { headers?: Record<string, unknown> }>;
  };
}
const spec = createRequire(import.meta.url)('@customer-api/contract/openapi.json') as Document;
const operations = Object.values(spec.paths).flatMap((item) => Object.entries(item));
/** Every method the document's operations use, upper case. */
const documentedMethods = new Set(operations.map(([method]) => method.toUpperCase()));
/** Every request header the document declares, lower case. */
const documentedRequestHeaders = new Set(
  operations.flatMap(([, op]) =>
    (op.parameters ?? [])
      .map((p) => (p.$ref ? spec.components.parameters[p.$ref.split('/').pop() ?? ''] : p))
      .filter((p) => p?.in === 'header')
      .map((p) => (p?.name ?? '').toLowerCase()),
  ),
);
/** Every response header the document declares, lower case. */
const documentedResponseHeaders = new Set(
  operations.flatMap(([, op]) =>
    Object.values(op.responses).flatMap((r) => {
      const response = r.$ref ? spec.components.responses[r.$ref.split('/').pop() ?? ''] : r;
      return Object.keys(response?.headers ?? {}).map((name) => name.toLowerCase());
    }),
  ),
);

const list = (header: string | string[] | number | undefined) =>
  String(header ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);

const preflight = (
  origin: string,
  url = '/v0/pages',
  requestHeaders = 'content-type, idempotency-key, x-api-key',
) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });

function corsHeaders(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
}

function expectReadableBy(res: LightMyRequestResponse, origin: string): void {
  expect(res.headers['access-control-allow-origin'], res.body).toBe(origin);
  expect(list(res.headers.vary)).toContain('origin');
  expect(list(res.headers['access-control-expose-headers'])).toEqual(
    expect.arrayContaining(['x-request-id', 'ratelimit-remaining', 'retry-after', 'idempotent-replayed']),
  );
  // Credentials travel in x-api-key, never in cookies.
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

describe('CORS preflights', () => {
  it('answers a listed origin 204 with the API methods, the headers the client sends and a max age', async () => {
    const res = await preflight(PAGE_ORIGIN);
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(list(res.headers.vary)).toContain('origin');
    expect(list(res.headers['access-control-allow-methods'])).toEqual(
      expect.arrayContaining([...documentedMethods].map((m) => m.toLowerCase())),
    );
    expect(list(res.headers['access-control-allow-headers'])).toEqual(
      expect.arrayContaining([
        ...documentedRequestHeaders,
        'x-api-key',
        'content-type',
        'idempotency-key',
        'user-agent',
        'traceparent',
        'tracestate',
      ]),
    );
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThanOrEqual(600);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('asks no key and leaves the key’s rate-limit budget untouched', async () => {
    const remaining = async () =>
      Number(
        (await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth() })).headers['ratelimit-remaining'],
      );
    const before = await remaining();
    for (let i = 0; i < 15; i++) {
      const res = await preflight('http://localhost:5173', `/v0/pages?limit=${i}`);
      expect(res.statusCode).toBe(204);
      expect(res.headers['ratelimit-remaining']).toBeUndefined();
    }
    expect(await remaining()).toBe(before - 1);
  });

  it('answers a preflight from an unlisted origin 403 with the error object and no CORS header', async () => {
    const res = await preflight(OTHER_ORIGIN);
    const body = expectApiError(res, 'FORBIDDEN');
    expect(body.detail).toBe(
      `Cross-origin requests from ${OTHER_ORIGIN} are not allowed: the server's CORS_ALLOWED_ORIGINS does not list this origin.`,
    );
    expect(corsHeaders(res)).toEqual([]);
    // A listed origin differs in scheme, host or port from every near miss.
    for (const near of [
      'http://pages.example.com',
      'https://pages.example.com:8443',
      'http://localhost:5174',
      'null',
    ])
      expect((await preflight(near)).statusCode, near).toBe(403);
  });

  it('keeps 404 for an OPTIONS request that is not a preflight', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/v0/pages?limit=2',
      headers: { origin: PAGE_ORIGIN },
    });
    expect(expectApiError(res, 'NOT_FOUND').detail).toBe('No route OPTIONS /v0/pages.');
  });
});

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

describe('a server without CORS_ALLOWED_ORIGINS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    const config = testConfig(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {});
    app = await buildApp({ config, database: t.database });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('admits no origin: no CORS header and no Vary on Origin; preflights are 403', async () => {
    const res = await app.inject({ url: '/v0/pages?limit=1', headers: { ...t.auth(), origin: PAGE_ORIGIN } });
    expect(res.statusCode).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
    expect(list(res.headers.vary)).not.toContain('origin');
    const refused = await app.inject({
      method: 'OPTIONS',
      url: '/v0/pages',
      headers: { origin: PAGE_ORIGIN, 'access-control-request-method': 'GET' },
    });
    expectApiError(refused, 'FORBIDDEN');
    expect(corsHeaders(refused)).toEqual([]);
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
