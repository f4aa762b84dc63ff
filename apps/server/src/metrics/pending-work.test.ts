import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadTestSettings } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { testConfig } from '../test/test-app.js';
import { useWebhookTest } from '../test/webhooks.js';
import { parseExposition } from './exposition.js';
import { registerOutboxGauges } from './outbox-gauges.js';
import { createMetrics, type Metrics } from './registry.js';

const w = useWebhookTest();
const { t, h } = w;

async function value(metrics: Metrics, name: string): Promise<number | undefined> {
  return parseExposition(await metrics.registry.metrics()).find((s) => s.name === name)?.value;
}

describe('webhook outbox gauges', () => {
  it('show the depth and the oldest due attempt’s age while a delivery waits for its retry', async () => {
    const metrics = createMetrics();
    registerOutboxGauges(metrics, t.database.db);
    await h.subscribe(w.receiver.url);
    await h.version();
    // A dispatcher whose clock is a minute behind: the failed first attempt's retry (1 s later
    // by WEBHOOKS_RETRY_SCHEDULE) fell due about 59 s ago and no dispatcher has taken it.
    w.receiver.fallback = { status: 500 };
    await h.dispatcher({ clock: () => new Date(Date.now() - 60_000) }).runOnce();
    expect(w.receiver.received).toHaveLength(1);
    expect(await value(metrics, 'webhook_outbox_depth')).toBeGreaterThanOrEqual(1);
    expect(await value(metrics, 'webhook_outbox_oldest_due_age_seconds')).toBeGreaterThan(30);
    // Delivered, the outbox of this tenant is empty again and the gauges fall back.
    w.receiver.fallback = { status: 200 };
    await h.dispatcher().runOnce();
    expect(w.receiver.received).toHaveLength(2);
    expect(await value(metrics, 'webhook_outbox_oldest_due_age_seconds')).toBeLessThan(30);
  });
});

describe.skipIf(!loadTestSettings().databaseUrl)(
  'statement timeouts (PostgreSQL only: PGlite has no statement_timeout)',
  () => {
    const metrics = createMetrics();
    let database: Database;
    let app: FastifyInstance;
    beforeAll(async () => {
      database = await openDatabase({ databaseUrl: t.config.databaseUrl, statementTimeoutMs: 300 });
      app = await buildApp({
        config: testConfig({ DATABASE_URL: t.config.databaseUrl ?? '' }),
        database,
        metrics,
      });
    });
    afterAll(async () => {
      await app?.close();
      await database?.close();
    });

    it('counts a statement PostgreSQL cancelled, and the request is 503', async () => {
      const auth = t.auth();
      expect((await app.inject({ url: '/v0/pages', headers: auth })).statusCode).toBe(200);
      expect(await value(metrics, 'statement_timeouts_total')).toBe(0);
      // Another session holds the table, so the listing waits past the 300 ms statement timeout.
      const holder = new pg.Client({ connectionString: t.config.databaseUrl });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE pages IN ACCESS EXCLUSIVE MODE');
        const res = await app.inject({ url: '/v0/pages', headers: auth });
        expect(res.statusCode, res.body).toBe(503);
        expect(res.json().detail).toMatch(/more database time than one request may use/);
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect(await value(metrics, 'statement_timeouts_total')).toBe(1);
      expect((await app.inject({ url: '/v0/pages', headers: auth })).statusCode).toBe(200);
    });
  },
);
