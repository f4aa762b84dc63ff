import { ERROR_CATALOG, ErrorSchema } from '@customer-api/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { call, pool, sleep } from './lib/http.js';
import { type Cluster, clusterUnavailableReason, createCluster } from './lib/postgres.js';
import { PROFILE, report, sized } from './lib/profile.js';
import { baseEnv, createKey, type ServerProcess, startProcess } from './lib/server-process.js';

const OUTAGE_MS = 10_000;
const CONNECTIONS = 16;
/** "Quick": far below a client's usual timeout even on a loaded machine. */
const MAX_503_LATENCY_MS = 6000;

interface Sample {
  at: number;
  status: number;
  ms: number;
  problem?: string;
}

const skipReason = clusterUnavailableReason();
let cluster: Cluster | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  await cluster?.destroy();
});

/** Checks one answer: success, or the 503 SERVICE_UNAVAILABLE object with Retry-After. */
function problemOf(status: number, body: unknown, retryAfter: unknown): string | undefined {
  if (status < 300) return undefined;
  if (status !== 503) return `status ${status}: ${JSON.stringify(body).slice(0, 200)}`;
  const parsed = ErrorSchema.safeParse(body);
  if (!parsed.success || parsed.data.code !== 'SERVICE_UNAVAILABLE')
    return `503 body ${JSON.stringify(body)}`;
  if (parsed.data.title !== ERROR_CATALOG.SERVICE_UNAVAILABLE.title) return 'wrong title';
  if (retryAfter === undefined) return '503 without Retry-After';
  return undefined;
}

async function loadWorker(url: string, apiKey: string, w: number, samples: Sample[], until: () => boolean) {
  const client = pool(url, 1);
  for (let i = 0; !until(); i += 1) {
    const started = Date.now();
    try {
      const res =
        i % 2 === 0
          ? await call(client, 'GET', '/v0/pages?limit=5', { apiKey, timeoutMs: 20_000 })
          : await call(client, 'POST', '/v0/account_logs', {
              apiKey,
              timeoutMs: 20_000,
              body: {
                source: 'outage',
                domain: 'outage.example',
                payload: { w, i },
                idempotencyKey: `o-${w}-${i}`,
              },
            });
      const problem = problemOf(res.status, res.body, res.headers['retry-after']);
      samples.push({
        at: started,
        status: res.status,
        ms: Date.now() - started,
        ...(problem ? { problem } : {}),
      });
    } catch (err) {
      samples.push({
        at: started,
        status: 0,
        ms: Date.now() - started,
        problem: `transport: ${String(err)}`,
      });
    }
    await sleep(5);
  }
  await client.destroy();
}

describe(`PostgreSQL stopped for ${OUTAGE_MS / 1000} s under load (${PROFILE})`, () => {
  it.skipIf(skipReason)('503 quickly, /readyz fails, and the service recovers by itself', async () => {
    cluster = await createCluster();
    const env = baseEnv({ DATABASE_URL: cluster.url, WEBHOOKS_DISPATCHER: '0' });
    const apiKey = await createKey(env, 'outage');
    server = await startProcess(env);
    const url = server.url;
    const samples: Sample[] = [];
    const ready: Sample[] = [];
    let stop = false;
    const workers = Array.from({ length: CONNECTIONS }, (_, w) =>
      loadWorker(url, apiKey, w, samples, () => stop),
    );
    const readiness = (async () => {
      while (!stop) {
        const started = Date.now();
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(20_000) }).catch(
          () => undefined,
        );
        ready.push({ at: started, status: res?.status ?? 0, ms: Date.now() - started });
        await sleep(250);
      }
    })();
    await sleep(sized(2000, 10_000));
    const down = Date.now();
    await cluster.stop();
    await sleep(OUTAGE_MS);
    await cluster.start();
    const up = Date.now();
    // Recovery: the first success after the database is back, without restarting the server.
    let recoveredAt: number | undefined;
    while (recoveredAt === undefined && Date.now() - up < 30_000) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      if (res?.status === 200) recoveredAt = Date.now();
      else await sleep(100);
    }
    await sleep(sized(3000, 10_000));
    stop = true;
    await Promise.all([...workers, readiness]);

    const during = samples.filter((s) => s.at > down + 500 && s.at < up);
    const after = samples.filter((s) => recoveredAt !== undefined && s.at > recoveredAt + 1000);
    const problems = samples.filter((s) => s.problem).map((s) => s.problem);
    report('postgres-outage', {
      requests: samples.length,
      outageMs: OUTAGE_MS,
      answered503: samples.filter((s) => s.status === 503).length,
      slowest503Ms: Math.max(0, ...samples.filter((s) => s.status === 503).map((s) => s.ms)),
      recoveryMs: recoveredAt === undefined ? -1 : recoveredAt - up,
      errorsAfterRecovery: after.filter((s) => s.status !== 200 && s.status !== 201).length,
      other: problems.length,
    });
    expect(problems).toEqual([]);
    expect(during.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(MAX_503_LATENCY_MS);
    expect(ready.some((s) => s.at > down + 500 && s.at < up && s.status === 503)).toBe(true);
    expect(recoveredAt).toBeDefined();
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((s) => s.status === 200 || s.status === 201)).toBe(true);
  });
});
