import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { openDatabase } from '../db/client.js';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';
import { createRateLimiter } from './rate-limit.js';

const settings = loadTestSettings();
const t = useTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '1000' } });

describe('rate limits per key (fixed window)', () => {
  it('uses the shared store whenever a PostgreSQL server is configured', () => {
    expect(createRateLimiter({ max: 1, windowMs: 1000 }).store).toBe('memory');
    if (t.database.pool) {
      const limiter = createRateLimiter({ max: 1, windowMs: 1000, pool: t.database.pool });
      expect(limiter.store).toBe('postgres');
    }
  });

  it('answers 429 RATE_LIMITED with details and Retry-After once the window is used up, then recovers', async () => {
    for (let i = 0; i < 3; i += 1) {
      const res = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    const body = expectApiError(limited, 'RATE_LIMITED');
    expect(body.details).toEqual({
      limit: 3,
      remaining: 0,
      resetTime: expect.any(Number),
      retryAfter: 1,
    });
    expect((body.details as { resetTime: number }).resetTime).toBeGreaterThan(Date.now() - 10);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    // Another key has its own window.
    const other = await t.seed.tenant();
    expect((await t.app.inject({ url: '/v0/pages', headers: other.auth() })).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.app.inject({ url: '/v0/pages', headers: t.auth() })).statusCode).toBe(200);
  });

  it('limits unauthenticated callers by address too', async () => {
    let last = 0;
    for (let i = 0; i < 5; i += 1) {
      last = (
        await t.app.inject({
          url: '/v0/pages',
          remoteAddress: '203.0.113.9',
          headers: { 'x-api-key': 'guess' },
        })
      ).statusCode;
    }
    expect(last).toBe(429);
  });

  it.skipIf(!settings.databaseUrl)('shares one window across processes through PostgreSQL', async () => {
    // A second pool on the per-file database stands in for a second server process.
    const second = await openDatabase({ databaseUrl: t.config.databaseUrl });
    try {
      const one = createRateLimiter({ max: 4, windowMs: 60_000, pool: t.database.pool });
      const two = createRateLimiter({ max: 4, windowMs: 60_000, pool: second.pool });
      const key = `k:${randomUUID()}`;
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 ? one : two).consume(key)));
      expect(results.filter((r) => r.allowed)).toHaveLength(4);
    } finally {
      await second.close();
    }
  });

  it.skipIf(!settings.redisUrl)('shares one window across processes through Redis', async () => {
    const one = createRateLimiter({ max: 4, windowMs: 60_000, redisUrl: settings.redisUrl });
    const two = createRateLimiter({ max: 4, windowMs: 60_000, redisUrl: settings.redisUrl });
    try {
      expect(one.store).toBe('redis');
      await Promise.all([one.ready(), two.ready()]);
      const key = `k:${randomUUID()}`;
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 ? one : two).consume(key)));
      expect(results.filter((r) => r.allowed)).toHaveLength(4);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
