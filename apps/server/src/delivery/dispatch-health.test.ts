import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { expectApiError } from '../test/http-cases.js';
import { testConfig } from '../test/test-app.js';
import { createTestDatabase } from '../test/test-database.js';
import { buildDispatchHealth } from './dispatch-health.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('the dispatch process health endpoint (DISPATCH_PORT)', () => {
  it('answers /healthz with the version, /readyz while the database answers, 503 once it is gone', async () => {
    const db = await createTestDatabase(loadTestSettings().databaseUrl);
    const app = buildDispatchHealth(testConfig(db.url ? { DATABASE_URL: db.url } : {}), db.database);
    try {
      const health = await app.inject({ url: '/healthz' });
      expect(health.json()).toEqual({ status: 'ok', version });
      expect(health.headers.server).toBe(`customer-api/${version}`);
      expect((await app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
      expectApiError(await app.inject({ url: '/v0/pages' }), 'NOT_FOUND');
      await db.database.close();
      const down = await app.inject({ url: '/readyz' });
      expectApiError(down, 'SERVICE_UNAVAILABLE');
      expect(down.headers['x-request-id']).toMatch(/^req_/);
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});
