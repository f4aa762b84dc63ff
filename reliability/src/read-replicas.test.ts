import { afterAll, describe, expect, it } from 'vitest';
import { call, pool, sleep } from './lib/http.js';
import { clusterUnavailableReason, createReplicatedClusters, query } from './lib/postgres.js';
import {
  baseEnv,
  createKey,
  freePort,
  runCli,
  type ServerProcess,
  startProcess,
  tcpAnswers,
} from './lib/server-process.js';

/** Replay lag past which reads leave the standby; long enough for a CLI run inside it. */
const MAX_LAG_MS = 10_000;

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** `db_reads_total` of one process, by `target/reason`. */
async function reads(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^db_reads_total\{target="(\w+)",reason="(\w+)"\} (\S+)$/gm)) {
    counts[`${match[1]}/${match[2]}`] = Number(match[3]);
  }
  return counts;
}

const page = (name: string) => ({ name, title: 't', pageContext: 'c', brandId: 'b', pageType: 'inbound' });

describe('read replicas: two API processes, a primary, a streaming standby and Redis', () => {
  it('reads go to the standby when it has what the caller wrote, else to the primary', async (ctx) => {
    const redis = 'redis://127.0.0.1:6379';
    const reason = clusterUnavailableReason() ?? ((await tcpAnswers(redis, 6379)) ? undefined : 'no Redis');
    if (reason) {
      console.warn(`[reliability] read-replica test skipped: ${reason}`);
      ctx.skip();
      return;
    }
    const clusters = await createReplicatedClusters();
    cleanups.push(() => clusters.destroy());
    const { primary, standby } = clusters;
    const env = baseEnv({
      DATABASE_URL: primary.url,
      DATABASE_REPLICA_URL: standby.url,
      DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      REDIS_URL: redis,
      WEBHOOKS_DISPATCHER: '0',
    });
    // Tenant names are new per run, so their write positions in the shared Redis are too.
    const run = Date.now().toString(36);
    const [writer, reader] = [`replica-writer-${run}`, `replica-reader-${run}`];
    const writerKey = await createKey(env, writer);
    const readerKey = await createKey(env, reader);
    const metricsPorts = [await freePort(), await freePort()];
    const [a, b] = (await Promise.all(
      metricsPorts.map((port) => startProcess({ ...env, METRICS_PORT: String(port) })),
    )) as [ServerProcess, ServerProcess];
    cleanups.push(async () => {
      await Promise.all([a.stop(), b.stop()]);
    });
    const [clientA, clientB] = [pool(a.url, 4), pool(b.url, 4)];
    cleanups.push(async () => {
      await Promise.all([clientA.destroy(), clientB.destroy()]);
    });
    await standby.caughtUp();
    // The processes trust Redis once they have read the primary's position (250 ms steps).
    await sleep(1000);

    // A reader that wrote nothing is served by the standby.
    const before = await reads(metricsPorts[1] as number);
    expect((await call(clientB, 'GET', '/v0/pages', { apiKey: readerKey })).status).toBe(200);
    const after = await reads(metricsPorts[1] as number);
    expect((after['replica/replayed'] ?? 0) - (before['replica/replayed'] ?? 0)).toBe(1);

    // Replay paused right after a replayed write: the standby's lag starts from that write.
    expect((await call(clientA, 'POST', '/v0/pages', { apiKey: writerKey, body: page('warm') })).status).toBe(
      201,
    );
    await standby.caughtUp();
    await standby.pauseReplay();
    const pausedAt = Date.now();

    // Pages the reader's tenant gets outside the API (the CLI, on the primary) are not replayed:
    // its reads, served by the standby, do not show them yet.
    await runCli(env, ['seed', '--tenant', reader]);
    const [{ count: seeded } = { count: '0' }] = await query<{ count: string }>(
      primary.url,
      `SELECT count(*) AS count FROM pages p JOIN tenants t ON t.id = p.tenant_id WHERE t.name = '${reader}'`,
    );
    expect(Number(seeded)).toBeGreaterThan(0);
    const stale = await call(clientB, 'GET', '/v0/pages', { apiKey: readerKey });
    expect(Date.now() - pausedAt).toBeLessThan(MAX_LAG_MS);
    expect(stale.status).toBe(200);
    expect((stale.body as { items: unknown[] }).items).toHaveLength(0);

    // Read-your-writes across processes: written through A, read through B at once, although
    // the standby has not replayed it.
    const created = await call(clientA, 'POST', '/v0/pages', { apiKey: writerKey, body: page('mine') });
    expect(created.status).toBe(201);
    const pageId = (created.body as { pageId: string }).pageId;
    const readBack = await call(clientB, 'GET', `/v0/pages/${pageId}`, { apiKey: writerKey });
    expect(readBack.status).toBe(200);
    expect(readBack.body).toMatchObject({ pageId, name: 'mine' });
    expect((await reads(metricsPorts[1] as number))['primary/behind']).toBeGreaterThanOrEqual(1);

    // Past the lag bound, every read runs on the primary: the reader now sees the seeded pages.
    await sleep(Math.max(0, pausedAt + MAX_LAG_MS + 500 - Date.now()));
    const fresh = await call(clientB, 'GET', '/v0/pages', { apiKey: readerKey });
    expect(fresh.status).toBe(200);
    expect((fresh.body as { items: unknown[] }).items.length).toBeGreaterThan(0);
    expect((await reads(metricsPorts[1] as number))['primary/lag']).toBeGreaterThanOrEqual(1);
    await standby.resumeReplay();
    await standby.caughtUp();

    // The standby stopped: every read still answers 200, from the primary.
    await standby.stop();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      for (const [client, apiKey] of [
        [clientA, readerKey],
        [clientB, writerKey],
      ] as const) {
        statuses.push((await call(client, 'GET', '/v0/pages', { apiKey })).status);
        statuses.push((await call(client, 'GET', `/v0/pages/${pageId}`, { apiKey: writerKey })).status);
      }
      await sleep(50);
    }
    expect(statuses.every((status) => status === 200)).toBe(true);
    const down = await reads(metricsPorts[0] as number);
    expect(down['primary/unavailable']).toBeGreaterThanOrEqual(1);
  });
});
