import { createClient } from '@customer-api/client';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type DroppingProxy, startDroppingProxy } from './lib/dropping-proxy.js';
import { postgresDatabase } from './lib/postgres.js';
import { PROFILE, report, sized } from './lib/profile.js';
import { baseEnv, freePort, runCli, type ServerProcess, startProcess } from './lib/server-process.js';

// Creations of each kind. The issue asks for 1,000 (`pnpm test:reliability`); CI makes 150 of
// each (1,500 requests through the proxy, about 30 s on a loaded 2-core machine).
const N = sized(150, 1000);
const WORKERS = 8;

/** Rows of the tenant per table, and its page.version.created events, read from the database. */
async function countRows(url: string, tenantId: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, number> = {};
    for (const table of ['pages', 'audiences', 'audience_versions', 'messages', 'webhook_subscriptions']) {
      const res = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, [
        tenantId,
      ]);
      out[table] = res.rows[0].n as number;
    }
    const events = await client.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE tenant_id = $1 AND type = 'page.version.created'`,
      [tenantId],
    );
    out['page.version.created'] = events.rows[0].n as number;
    return out;
  } finally {
    await client.end();
  }
}

describe(`every creation's response dropped once, one server killed mid-run (${PROFILE})`, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it(`PostgreSQL, two server processes: ${N} of each kind create exactly ${N} resources and events`, async (ctx) => {
    const database = await postgresDatabase();
    if ('skip' in database) {
      console.warn(`[reliability] idempotent-retries test skipped: ${database.skip}`);
      ctx.skip();
      return;
    }
    cleanups.push(database.dispose);
    const env = baseEnv({
      DATABASE_URL: database.url,
      WEBHOOKS_DISPATCHER: '0',
      WEBHOOKS_ALLOW_INSECURE: '1',
      WEBHOOKS_MAX_SUBSCRIPTIONS: String(N + 1),
    });
    const key = JSON.parse(await runCli(env, ['keys', 'create', '--tenant', `retries-${Date.now()}`])) as {
      apiKey: string;
      tenantId: string;
    };
    const ports = [await freePort(), await freePort()];
    const servers: ServerProcess[] = [];
    for (const port of ports) servers.push(await startProcess({ ...env, PORT: String(port) }));
    cleanups.push(async () => {
      for (const server of servers) await server.stop();
    });
    const proxy: DroppingProxy = await startDroppingProxy(ports.map((port) => `http://127.0.0.1:${port}`));
    cleanups.push(() => proxy.close());
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: key.apiKey,
      maxRetries: 30,
      timeoutMs: 10_000,
      backoff: { initialDelayMs: 20, maxDelayMs: 500 },
    });
    cleanups.push(() => client.close());

    // Half-way through, the first server is killed (-9) and restarted on its port; requests
    // it held fail at the proxy and are retried, on either process, with the same keys.
    let done = 0;
    let restart: Promise<void> | undefined;
    const killAndRestart = async () => {
      expect(await servers[0]?.kill9()).toBe('SIGKILL');
      servers[0] = await startProcess({ ...env, PORT: String(ports[0]) });
    };
    const createChain = async (i: number) => {
      const page = await client.createPage({
        body: { name: `p${i}`, title: 't', pageContext: 'c', brandId: 'b', pageType: 'inbound' },
      });
      const params = { page_id: page.pageId };
      const audience = await client.createAudience({ params, body: {} });
      const inAudience = { ...params, audience_id: audience.audienceId };
      await client.createAudienceVersion({ params: inAudience, body: {} });
      await client.createAudienceMessage({ params: inAudience, body: { role: 'user', content: `m${i}` } });
      await client.createWebhookSubscription({
        body: { url: `http://127.0.0.1:9/hook/${i}`, eventTypes: ['page.version.archived'] },
      });
      done += 1;
      if (done === Math.floor(N / 2)) restart = killAndRestart();
    };
    const started = performance.now();
    let nextIndex = 0;
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        for (let i = nextIndex++; i < N; i = nextIndex++) await createChain(i);
      }),
    );
    await restart;
    const seconds = (performance.now() - started) / 1000;

    const rows = await countRows(database.url, key.tenantId);
    report('idempotent-retries-postgres', {
      perKind: N,
      seconds: Number(seconds.toFixed(1)),
      dropped: proxy.counts.dropped,
      replayed: proxy.counts.replayed,
      upstreamFailures: proxy.counts.upstreamFailures,
      ...rows,
    });
    expect(rows).toEqual({
      pages: N,
      audiences: N,
      audience_versions: N,
      messages: N,
      webhook_subscriptions: N,
      'page.version.created': N,
    });
    expect(proxy.counts.dropped).toBe(5 * N);
    // Most dropped responses come back as replays; the rest are requests the kill cut before
    // they committed, which the retry then ran anew.
    expect(proxy.counts.replayed).toBeGreaterThan(5 * N - 100);
  });
});
