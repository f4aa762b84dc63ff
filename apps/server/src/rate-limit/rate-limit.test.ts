import { randomUUID } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { openDatabase } from '../db/database.js';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';
import { BatchingLimiter } from './batching.js';
import { createRateLimiter } from './rate-limit.js';

const settings = loadTestSettings();
// The app's limiter counts in memory on a clock the tests move: a window ends without waiting.
let nowMs = Date.parse('2026-01-01T00:00:00Z');
const clock = () => new Date(nowMs);
const t = useTestApp({
  env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '1000' },
  rateLimiter: (_database, config) => createRateLimiter({ ...config.rateLimit, clock }),
});

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
    // The window started at the first request and lasts the configured second.
    expect((body.details as { resetTime: number }).resetTime).toBe(nowMs + 1000);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe('1');
    // Another key has its own window.
    const other = await t.seed.tenant();
    expect((await t.app.inject({ url: '/v0/pages', headers: other.auth() })).statusCode).toBe(200);
    // Still refused just before the window ends, admitted once it has.
    nowMs += 999;
    expectApiError(await t.app.inject({ url: '/v0/pages', headers: t.auth() }), 'RATE_LIMITED');
    nowMs += 1;
    const recovered = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(recovered.statusCode).toBe(200);
    expect(recovered.headers['ratelimit-remaining']).toBe('2');
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

describe('batched counting in the shared store', () => {
  // A memory limiter stands in for the shared store: two BatchingLimiters on one store are two
  // server processes on one Redis or PostgreSQL.
  const shared = (max: number) => new RateLimiterMemory({ points: max, duration: 60, keyPrefix: 'rl' });

  it('admits far from the limit without losing a count: the store ends with every request', async () => {
    const store = shared(1000);
    let storeCalls = 0;
    const counted = Object.assign(Object.create(store), {
      consume: (key: string, points?: number) => {
        storeCalls += 1;
        return store.consume(key, points);
      },
    }) as RateLimiterMemory;
    const limiter = new BatchingLimiter(counted, 1000);
    const key = `k:${randomUUID()}`;
    const decisions = [];
    for (let i = 0; i < 900; i += 1) decisions.push(await limiter.consume(key));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.at(-1)?.remaining).toBe(100);
    // One store call per 50 requests (the slack), not one per request.
    expect(storeCalls).toBeLessThan(40);
    await limiter.close();
    expect((await store.get(key))?.consumedPoints).toBe(900);
  });

  it('is exact at the limit in one process, and refuses with the window left to wait', async () => {
    const store = shared(200);
    const limiter = new BatchingLimiter(store, 200);
    const key = `k:${randomUUID()}`;
    const decisions = [];
    for (let i = 0; i < 260; i += 1) decisions.push(await limiter.consume(key));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(200);
    expect(decisions.findIndex((d) => !d.allowed)).toBe(200);
    expect(decisions.at(-1)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 60 });
    await limiter.close();
  });

  it('lets two processes pass the limit by at most one slack (5 %) under a concurrent burst', async () => {
    const store = shared(400);
    const one = new BatchingLimiter(store, 400);
    const two = new BatchingLimiter(store, 400);
    const key = `k:${randomUUID()}`;
    // Both know the window, then bursts arrive faster than they send their counts.
    const decisions = [await one.consume(key), await two.consume(key)];
    for (let burst = 0; burst < 6; burst += 1) {
      decisions.push(
        ...(await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? one : two).consume(key)))),
      );
    }
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(400);
    expect(allowed).toBeLessThanOrEqual(420);
    await Promise.all([one.close(), two.close()]);
  });

  it('answers 503 while the store fails, and counts again once it is back', async () => {
    const store = shared(100);
    let down = false;
    const flaky = Object.assign(Object.create(store), {
      consume: (key: string, points?: number) =>
        down ? Promise.reject(new Error('store down')) : store.consume(key, points),
    }) as RateLimiterMemory;
    const limiter = new BatchingLimiter(flaky, 100);
    const key = `k:${randomUUID()}`;
    expect((await limiter.consume(key)).allowed).toBe(true);
    down = true;
    // Requests admitted locally meanwhile are fine; the first that must ask the store gets 503.
    await expect(
      (async () => {
        for (let i = 0; i < 20; i += 1) await limiter.consume(key);
      })(),
    ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    down = false;
    expect((await limiter.consume(key)).allowed).toBe(true);
    await limiter.close();
  });
});
