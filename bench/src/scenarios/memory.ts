// Scenario 6: the server's RSS after the scale and load scenarios, then over a constant mixed
// load (reads of /v0/pages, idempotent account log writes) of 5 minutes (8 s with --quick, 3 s
// with --smoke).
// Growth compares the last sample with the first one after a warm-up fifth of the run.
import { tenantKey } from '../lib/db.mjs';
import { hammer } from '../lib/load.mjs';
import { rssMiB } from '../lib/proc.mjs';

const RATE = 200; // requests per second, overall: constant, well below capacity

/** Runs scenario 6 on our Node 24 server (the one every earlier scenario used). */
export async function runMemory(ctx, server) {
  const seconds = ctx.smoke ? 3 : ctx.quick ? 8 : 300;
  const every = ctx.smoke ? 0.5 : ctx.quick ? 1 : 10;
  const afterEarlierScenarios = rssMiB(server.pid);
  const writer = tenantKey(ctx.databaseUrl, `bench-memory-${Date.now()}`);
  let n = 0;
  const requests = [
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
  const samples = [];
  const timer = setInterval(
    () => samples.push({ t: samples.length * every, rss: rssMiB(server.pid) }),
    every * 1000,
  );
  let load;
  try {
    load = await hammer({ url: server.url, seconds, connections: 10, overallRate: RATE, requests });
  } finally {
    clearInterval(timer);
  }
  const warm = samples[Math.floor(samples.length / 5)] ?? samples[0];
  const last = samples.at(-1);
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
