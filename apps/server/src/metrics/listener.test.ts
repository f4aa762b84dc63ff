import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import type { Database } from '../db/database.js';
import { testConfig } from '../test/test-app.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';
import { parseExposition } from './exposition.js';
import { startProcessMetrics } from './start.js';

describe('the /metrics listener', () => {
  let testDb: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    database = testDb.database;
  }, 60_000);
  afterAll(async () => {
    await testDb?.dispose();
  });

  it('starts nothing when METRICS_PORT is unset', async () => {
    const config = testConfig();
    expect(config.metricsPort).toBeUndefined();
    const { listener } = await startProcessMetrics(config, database);
    expect(listener).toBeUndefined();
  });

  it('serves process and pool metrics in the text format, and nothing else', async () => {
    const { listener } = await startProcessMetrics(
      testConfig({ METRICS_PORT: '0', HOST: '127.0.0.1' }),
      database,
    );
    if (!listener) throw new Error('expected a listener');
    try {
      const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const samples = parseExposition(await res.text());
      const names = new Set(samples.map((s) => s.name));
      expect(names.has('process_cpu_user_seconds_total')).toBe(true);
      expect(names.has('nodejs_eventloop_lag_seconds')).toBe(true);
      // Pool gauges exist on PostgreSQL only; PGlite has one connection and no pool.
      expect(names.has('db_pool_in_use')).toBe(database.kind === 'postgres');
      // An empty outbox, read by a query that works on both drivers (a failed read is NaN).
      const outbox = samples
        .filter((s) => s.name.startsWith('webhook_outbox_'))
        .map((s) => [s.name, s.value]);
      expect(outbox).toEqual([
        ['webhook_outbox_depth', 0],
        ['webhook_outbox_oldest_due_age_seconds', 0],
      ]);
      expect((await fetch(`http://127.0.0.1:${listener.port}/`)).status).toBe(404);
    } finally {
      await listener.close();
    }
  });
});
