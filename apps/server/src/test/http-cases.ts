import { ERROR_CATALOG, type ErrorCode, ErrorSchema } from '@customer-api/contract';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import type { TestApp } from './test-app.js';
import { TEST_BASE_URL } from './test-app.js';

/**
 * Asserts the specification's error object: status, code, title, type URI, and `requestId`
 * equal to the `x-request-id` header.
 */
export function expectApiError(res: LightMyRequestResponse, code: ErrorCode): Record<string, unknown> {
  const { status, title } = ERROR_CATALOG[code];
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(ErrorSchema.safeParse(body).success, res.body).toBe(true);
  expect(body).toMatchObject({ code, status, title, type: `${TEST_BASE_URL}/errors/${code.toLowerCase()}` });
  expect(body.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(res.headers['x-request-id']).toBe(body.requestId);
  return body;
}

/** A request built when the test runs (so it can use the test's tenant and seeded ids). */
export type RequestFactory = (t: TestApp) => Promise<InjectOptions & { url: string }>;

/**
 * Registers the cases every `/v0` route shares: success with the right key carries the request id
 * and rate-limit headers; no key and an unknown key are 401, a
 * multi-tenant key is 403, a read-only key on a write is 403; and, for routes with ids, another
 * tenant asking for the resource gets 404.
 */
export function itEnforcesAuth(
  t: TestApp,
  request: RequestFactory,
  options: { write: boolean; hasIds: boolean },
): void {
  it('succeeds with its key and sends the request id and RateLimit-* headers', async () => {
    const res = await t.app.inject(await request(t));
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    expect(res.headers['ratelimit-limit']).toBe(String(t.config.rateLimit.max));
    expect(Number(res.headers['ratelimit-remaining'])).toBeLessThan(t.config.rateLimit.max);
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
  });
  it('answers 401 without a key and with an unknown key', async () => {
    const req = await request(t);
    const { 'x-api-key': _key, ...headers } = (req.headers ?? {}) as Record<string, string>;
    expectApiError(await t.app.inject({ ...req, headers }), 'UNAUTHORIZED');
    expectApiError(
      await t.app.inject({ ...req, headers: { ...headers, 'x-api-key': 'cak_not-a-key' } }),
      'UNAUTHORIZED',
    );
  });
  it('answers 403 to a multi-tenant key', async () => {
    const req = await request(t);
    const key = await t.tenant.key(['read', 'write'], { multiTenant: true });
    expectApiError(
      await t.app.inject({ ...req, headers: { ...req.headers, 'x-api-key': key } }),
      'FORBIDDEN',
    );
  });
  if (options.write) {
    it('answers 403 to a read-only key', async () => {
      const req = await request(t);
      const key = await t.tenant.key(['read']);
      expectApiError(
        await t.app.inject({ ...req, headers: { ...req.headers, 'x-api-key': key } }),
        'FORBIDDEN',
      );
    });
  } else {
    it('accepts a read-only key', async () => {
      const req = await request(t);
      const key = await t.tenant.key(['read']);
      const res = await t.app.inject({ ...req, headers: { ...req.headers, 'x-api-key': key } });
      expect(res.statusCode, res.body).toBe(200);
    });
  }
  if (options.hasIds) {
    it("answers 404 for another tenant's resource", async () => {
      const req = await request(t);
      const other = await t.seed.tenant();
      expectApiError(
        await t.app.inject({ ...req, headers: { ...req.headers, ...other.auth() } }),
        'NOT_FOUND',
      );
    });
  }
}
