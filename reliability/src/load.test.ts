import type { Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { call, pool, sleep } from './lib/http.js';
import { PROFILE, report, sized } from './lib/profile.js';
import { median, rssMiB } from './lib/rss.js';
import { baseEnv, createKey, pgliteDataDir, type ServerProcess, startProcess } from './lib/server-process.js';

const CONNECTIONS = 50;
const PROBE_MS = sized(4000, 20_000);
const STEADY_MS = sized(15_000, 300_000);
/** Allowed growth of resident memory between the early and the late part of the steady run. */
const MAX_RSS_GROWTH = sized(0.5, 0.2);

let server: ServerProcess | undefined;
let dataDir: { path: string; remove(): Promise<void> } | undefined;
afterAll(async () => {
  await server?.stop();
  await dataDir?.remove();
});

/** The mix: mostly reads (a page of pages, one account), one in five an idempotent account log. */
function oneRequest(client: Pool, apiKey: string, i: number, accountId: string) {
  if (i % 5 === 0) {
    return call(client, 'POST', '/v0/account_logs', {
      apiKey,
      body: { source: 'load', accountId, payload: { i }, idempotencyKey: `load-${process.pid}-${i}` },
    });
  }
  return call(client, 'GET', i % 2 ? '/v0/pages?limit=20' : `/v0/accounts/${accountId}`, { apiKey });
}

/** Closed loop with every connection busy: the most the server answers per second. */
async function measureMax(client: Pool, apiKey: string, accountId: string): Promise<number> {
  let done = 0;
  let next = 1_000_000;
  const end = Date.now() + PROBE_MS;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        const res = await oneRequest(client, apiKey, next++, accountId);
        if (res.status < 300) done += 1;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

describe(`load at half the measured maximum (${PROFILE})`, () => {
  it('zero errors and stable memory', async () => {
    dataDir = await pgliteDataDir('reliability-load-');
    const env = baseEnv({ DATA_DIR: dataDir.path });
    const apiKey = await createKey(env, 'load');
    server = await startProcess(env);
    const client = pool(server.url, CONNECTIONS);
    const seed = await call(client, 'POST', '/v0/account_logs', {
      apiKey,
      body: { source: 'load', domain: 'load.example', payload: {} },
    });
    const accountId = (seed.body as { accountId: string }).accountId;
    const max = await measureMax(client, apiKey, accountId);
    const rate = max / 2;

    const errors: string[] = [];
    const latencies: number[] = [];
    const rss: Array<{ at: number; mib: number }> = [];
    const inFlight: Promise<void>[] = [];
    const started = Date.now();
    let sent = 0;
    while (Date.now() - started < STEADY_MS) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      for (; sent < due; sent += 1) {
        const t0 = Date.now();
        inFlight.push(
          oneRequest(client, apiKey, sent, accountId).then(
            (res) => {
              latencies.push(Date.now() - t0);
              if (res.status >= 300) errors.push(`${res.status} ${res.text.slice(0, 120)}`);
            },
            (err: unknown) => void errors.push(String(err)),
          ),
        );
      }
      if (inFlight.length > 5000) inFlight.splice(0, inFlight.length - 5000);
      const mib = rssMiB(server.child.pid);
      if (mib !== undefined && (rss.length === 0 || Date.now() - (rss.at(-1)?.at ?? 0) >= 1000))
        rss.push({ at: Date.now(), mib });
      await sleep(10);
    }
    // The sending period: draining the requests still in flight (seconds on a loaded machine) is
    // not time in which the generator was meant to send.
    const elapsed = (Date.now() - started) / 1000;
    await Promise.all(inFlight);
    await client.destroy();

    const early = median(
      rss
        .filter((s) => s.at - started > STEADY_MS * 0.2 && s.at - started <= STEADY_MS * 0.4)
        .map((s) => s.mib),
    );
    const late = median(rss.filter((s) => s.at - started > STEADY_MS * 0.8).map((s) => s.mib));
    latencies.sort((a, b) => a - b);
    report('load', {
      maxRps: Math.round(max),
      targetRps: Math.round(rate),
      achievedRps: Math.round(sent / elapsed),
      seconds: Math.round(elapsed),
      requests: sent,
      errors: errors.length,
      p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      rssEarlyMiB: Math.round(early),
      rssLateMiB: Math.round(late),
    });
    expect(errors.slice(0, 5)).toEqual([]);
    expect(sent).toBeGreaterThan(rate * elapsed * 0.95);
    if (rss.length > 0) expect(late).toBeLessThan(early * (1 + MAX_RSS_GROWTH));
  });
});
