// Observability overhead: GET /v0/pages?limit=20 on our server with metrics off, with
// metrics on (METRICS_PORT) and traces off, and with metrics on and every request traced to an
// OTLP collector in this process, each against a bare Fastify route in the same round.
//
//   node bench/dist/scenarios/observability.js [--rounds=3] [--seconds=8]
//
// Needs `pnpm build`, PostgreSQL at 127.0.0.1:5432 (database `bench`) and Redis (as `pnpm bench`).
// Rounds are interleaved so that a noisy neighbour hits every target alike; ratios are taken within
// a round. Prints a Markdown table and writes the figures to bench/results/observability.json.
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDatabase, tenantKey } from '../lib/db.js';
import { hammer, type LoadRun } from '../lib/load.js';
import { startOurs } from '../lib/ours.js';
import { cpuMicros, freePort, node24, ROOT, type ServerHandle, startProcess, stopAll } from '../lib/proc.js';
import { fmtSpread, spread } from '../lib/stats.js';
import type { Spread } from '../results.js';
import { seedPages } from './overhead.js';

const PATH = '/v0/pages?limit=20';

/** An OTLP/HTTP trace receiver: counts export requests, their bytes and spans, answers 200. */
async function startCollector() {
  const counts = { exports: 0, bytes: 0, spans: 0 };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    counts.exports += 1;
    counts.bytes += body.length;
    try {
      for (const rs of JSON.parse(body.toString('utf8')).resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) counts.spans += ss.spans?.length ?? 0;
    } catch {}
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, counts, close: () => server.close() };
}

/** Starts the four targets on Node 24. */
/** One target of the scenario. */
interface Target {
  key: string;
  server: ServerHandle;
}

async function startTargets(
  bin: string,
  databaseUrl: string,
  apiKey: string,
  collector: { url: string },
): Promise<Target[]> {
  const plain = await startOurs({ name: 'ours-plain', bin, databaseUrl });
  await seedPages(plain, apiKey);
  const body = await (await fetch(`${plain.url}${PATH}`, { headers: { 'x-api-key': apiKey } })).text();
  const bodyFile = join(tmpdir(), `bench-observability-${process.pid}.json`);
  writeFileSync(bodyFile, body);
  const port = await freePort();
  const fastify = await startProcess({
    name: 'fastify',
    bin,
    args: [new URL('../servers/bare-fastify.js', import.meta.url).pathname],
    url: `http://127.0.0.1:${port}`,
    env: { DATABASE_URL: databaseUrl, BODY_FILE: bodyFile, PORT: String(port) },
  });
  const metrics = async (name: string, env: Record<string, string> = {}) =>
    startOurs({ name, bin, databaseUrl, env: { METRICS_PORT: String(await freePort()), ...env } });
  return [
    { key: 'fastify', server: fastify },
    { key: 'plain', server: plain },
    { key: 'metrics', server: await metrics('ours-metrics') },
    {
      key: 'metrics+traces',
      server: await metrics('ours-traced', {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'customer-api-bench',
      }),
    },
  ];
}

/** One target's row of the table. */
interface Row {
  key: string;
  rps: Spread;
  p50: Spread;
  p99: Spread;
  cpuUs: Spread;
  failures: number;
  ratioToFastify: Spread;
}

/** What the scenario measured. */
interface ObservabilityResult {
  rounds: number;
  seconds: number;
  rows: Row[];
  metricsVsPlain: Spread;
  tracesVsPlain: Spread;
  collector: { exports: number; spans: number; bytes: number; spansPerTracedRequest: number };
}

/** One round: each target's run by key. */
type Round = Record<string, LoadRun & { cpuPerRequest: number }>;

/** Runs the scenario; returns per-target spreads and per-round ratios to bare Fastify. */
export async function runObservability({
  rounds = 3,
  seconds = 8,
  warmupSeconds = 3,
  progress = (_line: string): void => {},
} = {}): Promise<ObservabilityResult> {
  const bin = node24();
  const databaseUrl = await ensureDatabase('bench');
  const pages = tenantKey(databaseUrl, 'bench-pages');
  const collector = await startCollector();
  let result: Omit<ObservabilityResult, 'collector'> | undefined;
  let tracedRequests = 0;
  try {
    const targets = await startTargets(bin, databaseUrl, pages.apiKey, collector);
    const headers = { 'x-api-key': pages.apiKey };
    for (const t of targets) {
      const warm = await hammer({ url: `${t.server.url}${PATH}`, headers, seconds: warmupSeconds });
      if (t.key === 'metrics+traces') tracedRequests += warm.total;
    }
    const runs: Round[] = [];
    for (let r = 0; r < rounds; r += 1) {
      const round: Round = {};
      for (const t of targets) {
        const cpu0 = cpuMicros(t.server.pid);
        const load = await hammer({ url: `${t.server.url}${PATH}`, headers, seconds });
        const run = { ...load, cpuPerRequest: (cpuMicros(t.server.pid) - cpu0) / load.total };
        if (t.key === 'metrics+traces') tracedRequests += run.total;
        round[t.key] = run;
        progress(`observability round ${r + 1}/${rounds}: ${t.key}`);
      }
      runs.push(round);
    }
    const none = {
      rps: Number.NaN,
      p50: Number.NaN,
      p99: Number.NaN,
      non2xx: 0,
      errors: 0,
      cpuPerRequest: Number.NaN,
    };
    const of = (r: Round, key: string) => r[key] ?? none;
    const rows = targets.map((t) => ({
      key: t.key,
      rps: spread(runs.map((r) => of(r, t.key).rps)),
      p50: spread(runs.map((r) => of(r, t.key).p50)),
      p99: spread(runs.map((r) => of(r, t.key).p99)),
      cpuUs: spread(runs.map((r) => of(r, t.key).cpuPerRequest)),
      failures: runs.reduce((n, r) => n + of(r, t.key).non2xx + of(r, t.key).errors, 0),
      ratioToFastify: spread(runs.map((r) => of(r, t.key).rps / of(r, 'fastify').rps)),
    }));
    // The bar: metrics on keeps the plain server's ratio to bare Fastify within 5 %.
    const relative = (key: string) =>
      spread(
        runs.map((r) => of(r, key).rps / of(r, 'fastify').rps / (of(r, 'plain').rps / of(r, 'fastify').rps)),
      );
    result = {
      rounds,
      seconds,
      rows,
      metricsVsPlain: relative('metrics'),
      tracesVsPlain: relative('metrics+traces'),
    };
  } finally {
    // SIGTERM: the traced server sends the spans it still holds before it exits.
    await stopAll();
    collector.close();
  }
  const { exports, spans, bytes } = collector.counts;
  return {
    ...result,
    collector: { exports, spans, bytes, spansPerTracedRequest: spans / Math.max(1, tracedRequests) },
  };
}

/** The Markdown table of a result. */
export function renderObservability(result: ObservabilityResult): string {
  const lines = [
    `GET ${PATH}, Node 24, ${result.rounds} rounds of ${result.seconds} s (median, min–max):`,
    '',
    '| Target | req/s | p50 ms | p99 ms | CPU µs/request | × bare Fastify | failures |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.key} | ${fmtSpread(r.rps)} | ${fmtSpread(r.p50)} | ${fmtSpread(r.p99)} | ${fmtSpread(r.cpuUs)} | ${fmtSpread(r.ratioToFastify, 2)} | ${r.failures} |`,
    ),
    '',
    `Ratio to bare Fastify relative to metrics off: metrics on, traces off ${fmtSpread(result.metricsVsPlain, 3)} (bar: ≥ 0.95); metrics and traces exported ${fmtSpread(result.tracesVsPlain, 3)}.`,
    `Collector: ${result.collector.exports} exports, ${result.collector.spans} spans (${result.collector.spansPerTracedRequest.toFixed(2)} per traced request), ${(result.collector.bytes / 1048576).toFixed(1)} MiB.`,
  ];
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '8' } },
  });
  const result = await runObservability({
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(`${ROOT}bench/results/observability.json`, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${renderObservability(result)}\n`);
}
