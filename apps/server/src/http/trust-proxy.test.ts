import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { type Database, openDatabase } from '../db/database.js';
import { testConfig, useTestApp } from '../test/test-app.js';

// Unauthenticated requests are limited per client address: 2 per window here.
const LIMIT = { RATE_LIMIT_MAX: '2' };
const t = useTestApp({ env: { ...LIMIT, TRUST_PROXY: '1' } });
let direct: { app: FastifyInstance; database: Database | undefined };

beforeAll(async () => {
  // The same limits without TRUST_PROXY (its own pool on PostgreSQL, like another process).
  const database = t.config.databaseUrl
    ? await openDatabase({ databaseUrl: t.config.databaseUrl })
    : undefined;
  const config = testConfig({
    ...LIMIT,
    ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}),
  });
  direct = { app: await buildApp({ config, database: database ?? t.database }), database };
});

afterAll(async () => {
  await direct?.app.close();
  await direct?.database?.close();
});

/** Three key-less requests from `client` through the load balancer at `balancer`; their statuses. */
async function threeFrom(app: FastifyInstance, balancer: string, client: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({
      url: '/v0/pages',
      remoteAddress: balancer,
      headers: { 'x-forwarded-for': `198.51.100.99, ${client}` },
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

describe('TRUST_PROXY', () => {
  it('1: per-address limits count the client in X-Forwarded-For, not the load balancer', async () => {
    expect(await threeFrom(t.app, '10.0.0.1', '203.0.113.1')).toEqual([401, 401, 429]);
    // Another client behind the same balancer has its own window.
    expect(await threeFrom(t.app, '10.0.0.1', '203.0.113.2')).toEqual([401, 401, 429]);
    // Only the last hop is trusted: the client cannot choose its address by adding hops.
    expect(await threeFrom(t.app, '10.0.0.1', '203.0.113.2')).toEqual([429, 429, 429]);
  });

  it('unset: X-Forwarded-For is ignored, every client behind the balancer shares its window', async () => {
    expect(await threeFrom(direct.app, '10.0.0.2', '203.0.113.3')).toEqual([401, 401, 429]);
    expect(await threeFrom(direct.app, '10.0.0.2', '203.0.113.4')).toEqual([429, 429, 429]);
  });
});
