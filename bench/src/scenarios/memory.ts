// Scenario 6: the server's RSS after the scale and load scenarios, then over a constant mixed
// load (reads of /v0/pages, idempotent account log writes) of 5 minutes (8 s with --quick, 3 s
// with --smoke).
// Growth compares the last sample with the first one after a warm-up fifth of the run.
import type { RequestSpec } from 'autocannon';
import type { SharedContext } from '../context.js';
import { tenantKey } from '../lib/db.js';
import { hammer, type LoadRun } from '../lib/load.js';
import { rssMiB, type ServerHandle } from '../lib/proc.js';
import type { MemoryResult } from '../results.js';

const RATE = 200; // requests per second, overall: constant, well below capacity

/** Runs scenario 6 on our Node 24 server (the one every earlier scenario used). */
export async function runMemory(ctx: SharedContext, server: ServerHandle): Promise<MemoryResult> {
  const seconds = ctx.smoke ? 3 : ctx.quick ? 8 : 300;
  const every = ctx.smoke ? 0.5 : ctx.quick ? 1 : 10;
  const afterEarlierScenarios = rssMiB(server.pid);
  const writer = tenantKey(ctx.databaseUrl, `bench-memory-${Date.now()}`);
  let n = 0;
  const requests: RequestSpec[] = [
    { method: 'GET', path: '/v0/pages?limit=20', headers: { 'x-api-key': ctx.pages.apiKey } },
    {
      method: 'POST',
      path: '/v0/account_logs',
      setupRequest: (req) => {
        n += 1;
        const body = {
          source: 'bench',
          domain: `m${n % 1000}.memory.example`,
          payload: { n },
          idempotencyKey: `m-${n}`,
        };
        return {
          ...req,
          headers: { 'x-api-key': writer.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        };
      },
    },
  ];
  const samples: { t: number; rss: number }[] = [];
  const timer = setInterval(
    () => samples.push({ t: samples.length * every, rss: rssMiB(server.pid) }),
    every * 1000,
  );
  let load: LoadRun;
  try {
    load = await hammer({ url: server.url, seconds, connections: 10, overallRate: RATE, requests });
  } finally {
    clearInterval(timer);
  }
  const none = { t: 0, rss: Number.NaN };
  const warm = samples[Math.floor(samples.length / 5)] ?? samples[0] ?? none;
  const last = samples.at(-1) ?? none;
  return {
    seconds,
    rate: RATE,
    afterEarlierScenarios,
    samples,
    warm: warm.rss,
    last: last.rss,
    peak: Math.max(...samples.map((s) => s.rss)),
    growth: (last.rss - warm.rss) / warm.rss,
    failures: load.non2xx + load.errors,
    achievedRps: load.rps,
  };
}
