import { describe, expect, it } from 'vitest';
import {
  corsHeaders,
  documentedMethods,
  documentedRequestHeaders,
  list,
  OTHER_ORIGIN,
  PAGE_ORIGIN,
  useCorsTestApp,
} from '../test/cors.js';
import { expectApiError } from '../test/http-cases.js';

const t = useCorsTestApp();

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
