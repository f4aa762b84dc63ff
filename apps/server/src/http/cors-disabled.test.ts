import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { corsHeaders, list, PAGE_ORIGIN, useCorsTestApp } from '../test/cors.js';
import { expectApiError } from '../test/http-cases.js';
import { testConfig } from '../test/test-app.js';

const t = useCorsTestApp();

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
