import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../app.js';
import { loadTestSettings } from '../config.js';
import { createRateLimiter } from '../rate-limit/rate-limit.js';
import { createSeeder, type TestTenant } from '../test/seed.js';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.js';
import { testConfig } from '../test/test-app.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';

const { redisUrl } = loadTestSettings();

describe.skipIf(!redisUrl)('a Redis outage (REDIS_URL through a proxy the test cuts)', () => {
  let proxy: TcpProxy;
  let viaProxy: string;
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let tenant: TestTenant;

  beforeAll(async () => {
    const target = new URL(redisUrl ?? '');
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    viaProxy = `redis://127.0.0.1:${proxy.port}`;
    testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    const config = testConfig({
      REDIS_URL: viaProxy,
      ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
    });
    app = await buildApp({ config, database: testDb.database });
    tenant = await createSeeder(app, testDb.database.db).tenant();
  });

  afterAll(async () => {
    await app?.close();
    await testDb?.dispose();
    await proxy?.close();
  });

  it('degrades to per-process limits (requests still answered); /readyz stays 200 and names Redis', async () => {
    const ok = () => app.inject({ url: '/v0/pages?limit=1', headers: tenant.auth() });
    expect((await ok()).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await proxy.cut();
    await vi.waitFor(
      async () => {
        const readyz = await app.inject({ url: '/readyz' });
        expect(readyz.statusCode).toBe(200);
        expect(readyz.json()).toEqual({ status: 'ready', degraded: ['redis'] });
      },
      { timeout: 10_000, interval: 50 },
    );
    // Every request during the outage is served, with the rate-limit headers of the local count.
    for (let i = 0; i < 20; i++) {
      const res = await ok();
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('1000');
    }
    await proxy.restore();
    await vi.waitFor(
      async () => expect((await app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' }),
      {
        timeout: 15_000,
        interval: 100,
      },
    );
    expect((await ok()).statusCode).toBe(200);
  });

  it('reports the loss once and the return, for the warning in the log', async () => {
    const states: string[] = [];
    const limiter = createRateLimiter({
      max: 5,
      windowMs: 60_000,
      redisUrl: viaProxy,
      onRedisState: (state) => states.push(state),
    });
    try {
      await limiter.ready();
      const lost = vi.waitFor(() => expect(states).toContain('lost'), { timeout: 10_000, interval: 20 });
      await proxy.cut();
      await lost;
      // Counted in this process meanwhile: the sixth request of the window is still refused.
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push((await limiter.consume(`k-${process.pid}`)).allowed);
      expect(answers).toEqual([true, true, true, true, true, false]);
      await proxy.restore();
      await vi.waitFor(() => expect(states).toContain('back'), { timeout: 15_000, interval: 50 });
      expect(states.filter((s) => s === 'lost')).toHaveLength(1);
    } finally {
      await limiter.close();
    }
  });
});
