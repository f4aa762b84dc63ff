import { contract } from '@customer-api/contract';
import { isAppRoute } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { TenantShare } from '../db/tenant-share.js';
import { testConfig, useTestApp } from '../test/test-app.js';
import { parseExposition, type Sample } from './exposition.js';
import { contractOperationCount } from './operation-names.js';
import { createMetrics, type Metrics } from './registry.js';

const metrics = createMetrics();
const t = useTestApp({ metrics });

async function scrape(of: Metrics): Promise<Sample[]> {
  return parseExposition(await of.registry.metrics());
}

/** A small seeded generator, so a failing fuzz run can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('HTTP metrics', () => {
  it('labels requests by operation name, never by the raw URL, after a fuzz run', async () => {
    const next = random(15);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const patterns = Object.values(contract).flatMap((route) => (isAppRoute(route) ? [route.path] : []));
    const segment = () => `fz${Math.floor(next() * 1e9).toString(36)}`;
    for (let i = 0; i < 300; i++) {
      const path =
        next() < 0.7
          ? pick(patterns).replace(/:[a-z_]+/g, () => (next() < 0.5 ? segment() : `pag_${segment()}`))
          : `${pick(['', '/v0', '/healthz'])}/${Array.from({ length: 1 + Math.floor(next() * 4) }, segment).join('/')}`;
      const query = next() < 0.5 ? `?${segment()}=${segment()}&limit=${Math.floor(next() * 200)}` : '';
      await t.app.inject({
        method: pick(['GET', 'GET', 'POST', 'PATCH', 'DELETE', 'HEAD'] as const),
        url: `${path}${query}`,
        headers: t.auth(),
        ...(next() < 0.3 ? { payload: { [segment()]: segment() } } : {}),
      });
    }
    await t.app.inject({ url: '/healthz' });
    const requests = (await scrape(metrics)).filter((s) => s.name === 'http_requests_total');
    const operations = new Set(requests.map((s) => s.labels.operation));
    expect(operations.has('healthz')).toBe(true);
    expect(operations.has('unknown')).toBe(true);
    expect(operations.has('getPage')).toBe(true);
    // The contract's operations plus a handful of fixed names, whatever the URLs were.
    expect(operations.size).toBeLessThanOrEqual(contractOperationCount() + 8);
    expect([...operations].filter((name) => name?.includes('fz') || name?.includes('?'))).toEqual([]);
    expect(requests.reduce((sum, s) => sum + s.value, 0)).toBeGreaterThanOrEqual(301);
    const statusClasses = new Set(requests.map((s) => s.labels.status_class));
    expect([...statusClasses].every((c) => /^[1-5]xx$/.test(c ?? ''))).toBe(true);
  }, 120_000);

  it('observes latency per operation and status class', async () => {
    await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    const counts = (await scrape(metrics)).filter((s) => s.name === 'http_request_duration_seconds_count');
    const listPages = counts.find(
      (s) => s.labels.operation === 'listPages' && s.labels.status_class === '2xx',
    );
    expect(listPages?.value).toBeGreaterThanOrEqual(1);
  });

  describe('a second app with its own registry and a small window', () => {
    const limited = createMetrics();
    const share = new TenantShare({ concurrency: 4, queueMs: 0 });
    let app: FastifyInstance;
    beforeAll(async () => {
      const env = {
        RATE_LIMIT_MAX: '2',
        ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}),
      };
      app = await buildApp({
        config: testConfig(env),
        database: t.database,
        metrics: limited,
        tenantShare: share,
      });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('counts a 429 by its reason, in that app only', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await app.inject({ url: '/v0/pages', headers: t.auth() })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 429]);
      const rejected = (await scrape(limited)).filter((s) => s.name === 'rate_limited_total');
      expect(rejected).toEqual([{ name: 'rate_limited_total', labels: { reason: 'key' }, value: 1 }]);
      const tooMany = (await scrape(limited)).find(
        (s) => s.name === 'http_requests_total' && s.labels.status_class === '4xx',
      );
      expect(tooMany?.labels).toEqual({ operation: 'listPages', method: 'GET', status_class: '4xx' });
      const elsewhere = (await scrape(metrics)).filter((s) => s.name === 'rate_limited_total' && s.value > 0);
      expect(elsewhere).toEqual([]);
    });

    it('counts a 429 of the tenant database share under its own reason', async () => {
      const tenant = await t.seed.tenant();
      // The tenant's whole share is held, so its next database checkout is refused at once.
      const held = await Promise.all(Array.from({ length: 4 }, () => share.acquire(tenant.tenantId)));
      try {
        expect((await app.inject({ url: '/v0/pages', headers: tenant.auth() })).statusCode).toBe(429);
      } finally {
        for (const release of held) release();
      }
      const rejected = (await scrape(limited)).filter((s) => s.name === 'rate_limited_total');
      expect(rejected).toContainEqual({
        name: 'rate_limited_total',
        labels: { reason: 'tenant_share' },
        value: 1,
      });
    });
  });
});
