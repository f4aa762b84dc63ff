import { once } from 'node:events';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadTestSettings } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { expectApiError } from '../test/http-cases.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';

// Two apps on one PostgreSQL database stand for two server processes: nothing in memory is shared.
const t = useTestApp();
const onPostgres = Boolean(loadTestSettings().databaseUrl);
let second: { app: FastifyInstance; database: Database };

beforeAll(async () => {
  if (!onPostgres) return;
  const database = await openDatabase({ databaseUrl: t.config.databaseUrl });
  second = { app: await buildApp({ config: t.config, database }), database };
});

afterAll(async () => {
  await second?.app.close();
  await second?.database.close();
});

function post(app: FastifyInstance, url: string, key: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, headers: { ...t.auth(), 'idempotency-key': key }, payload: {} });
}

/** Sends until the answer is not "still running" (409 with Retry-After), as the client does. */
async function settle(app: FastifyInstance, url: string, key: string): Promise<LightMyRequestResponse> {
  for (;;) {
    const res = await post(app, url, key);
    if (res.statusCode !== 409 || res.headers['retry-after'] !== '1') return res;
  }
}

async function audienceOf(): Promise<{ pageId: string; audienceId: string }> {
  const page = await t.seed.page(t.tenant);
  const audience = await t.seed.audience(t.tenant, page.pageId);
  return { pageId: page.pageId, audienceId: audience.audienceId };
}

describe.skipIf(!onPostgres)('Idempotency-Key across processes (PostgreSQL)', () => {
  it('answers 409 with Retry-After in the other process while the first holds the key', async () => {
    const page = await t.seed.page(t.tenant);
    const url = `/v0/pages/${page.pageId}/audiences`;
    // Hold the page row: the first request's createAudience waits on it inside its transaction.
    const holder = new pg.Client({ connectionString: t.config.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM pages WHERE tenant_id = $1 AND id = $2 FOR UPDATE', [
      t.tenant.tenantId,
      page.pageId,
    ]);
    const locked = once(t.app.idempotency.events, 'locked');
    const first = post(t.app, url, 'cross');
    await locked;
    const during = await post(second.app, url, 'cross');
    expectApiError(during, 'CONFLICT');
    expect(during.headers['retry-after']).toBe('1');
    await holder.query('COMMIT');
    await holder.end();
    const done = await first;
    expect(done.statusCode).toBe(201);
    const replay = await post(second.app, url, 'cross');
    expect(replay.body).toBe(done.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('concurrent retries in two processes create exactly one version and one event', async () => {
    const { pageId, audienceId } = await audienceOf();
    const url = `/v0/pages/${pageId}/audiences/${audienceId}/versions`;
    const apps = [t.app, second.app, t.app, second.app, t.app, second.app, t.app, second.app];
    const answers = await Promise.all(apps.map((app) => settle(app, url, 'both')));
    expect(answers.map((a) => a.statusCode)).toEqual(apps.map(() => 201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    const events = await query<{ n: number }>(
      t.database.db,
      `SELECT count(*) AS n FROM webhook_events WHERE tenant_id = $1 AND type = 'page.version.created'`,
      [t.tenant.tenantId],
    );
    expect(events[0]?.n).toBe(1);
  });
});
