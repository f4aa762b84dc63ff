#!/usr/bin/env node
// pnpm --filter @customer-api/bench run ab --baseline=<checkout> [--rounds=4] [--seconds=8] [--only=server,dispatch]
// Same-run comparison of this checkout's build with another checkout's (built, with its own
// node_modules): rounds alternate which build goes first, each build's server starts fresh on the
// same PostgreSQL database, and every figure is a median (min-max) over rounds. Measured per build:
// GET /v0/pages?limit=20 at 50 connections (req/s, server CPU µs per request), sequential getPage
// and getAccount on one connection, POST /v0/account_logs at 50 connections, and one
// `customer-api dispatch` draining 2,000 events (each build's own webhooks worker). Prints a
// Markdown table and writes bench/results/ab.json. Needs PostgreSQL (BENCH_PG_URL) and Node 24.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDatabase, tenantKey } from './lib/db.js';
import { hammer, latency } from './lib/load.js';
import { api, startOurs } from './lib/ours.js';
import { cpuMicros, node24, ROOT, runJsonScript, stopAll, stopProcess } from './lib/proc.js';
import { spread } from './lib/stats.js';
import type { Spread } from './results.js';
import { seedPages } from './scenarios/overhead.js';
import type { DrainRoundOutput } from './scenarios/webhooks-drain/measures.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '8' },
    events: { type: 'string', default: '2000' },
    only: { type: 'string', default: 'server,dispatch' },
  },
});
if (!values.baseline) {
  process.stderr.write('--baseline=<path of another checkout, built> is required\n');
  process.exit(2);
}
/** A checkout to measure: its label and root directory. */
interface Build {
  label: string;
  root: string;
}
/** Requests/s and the server's CPU µs per request of one load. */
interface Rate {
  rps: number;
  cpuPerRequest: number;
}
/** What one round measured of one build. */
interface Figures {
  listPages?: Rate;
  getPage?: Rate;
  getAccount?: Rate;
  ingestion?: Rate;
  dispatch?: {
    deliveriesPerS: number | undefined;
    dispatcherCpuPerDelivery: number | undefined;
    postgresCpuPerDelivery: number | undefined;
  };
}

const ROUNDS = Number(values.rounds);
const parts = new Set(values.only.split(','));
const SECONDS = Number(values.seconds);
const builds: Build[] = [
  { label: 'baseline', root: join(values.baseline, '/') },
  { label: 'this', root: ROOT },
];
const serverMain = (build: Build) => `${build.root}apps/server/dist/main.js`;
/** The build's own webhooks worker: its compiled one, or, in a checkout from before the bench was TypeScript, its script. */
const webhooksWorker = (build: Build) => {
  const compiled = `${build.root}bench/dist/scenarios/webhooks-worker.js`;
  return existsSync(compiled) ? compiled : `${build.root}bench/src/scenarios/webhooks-worker.mjs`;
};
const n24 = node24();

const databaseUrl = await ensureDatabase('bench_ab');
const hooksUrl = await ensureDatabase('bench_ab_hooks', { fresh: true });
const { apiKey } = tenantKey(databaseUrl, 'bench-ab');

/** What one round measures of one build's server (started, measured, stopped). */
async function serverFigures(build: Build): Promise<Figures> {
  const server = await startOurs({
    name: `ab-${build.label}`,
    bin: n24,
    main: serverMain(build),
    databaseUrl,
  });
  try {
    const headers = { 'x-api-key': apiKey };
    await seedPages(server, apiKey);
    const page = (await api<{ items: { pageId: string }[] }>(server.url, apiKey, 'GET', '/v0/pages?limit=1'))
      .items[0];
    const log = await api<{ accountId?: string; account?: { accountId?: string } }>(
      server.url,
      apiKey,
      'POST',
      '/v0/account_logs',
      {
        source: 'bench',
        domain: 'ab.bench.example',
        payload: { n: 1 },
      },
    );
    const accountId = log.accountId ?? log.account?.accountId;
    const measure = async (run: () => Promise<{ rps: number; total: number }>): Promise<Rate> => {
      const cpu0 = cpuMicros(server.pid);
      const result = await run();
      return { rps: result.rps, cpuPerRequest: (cpuMicros(server.pid) - cpu0) / result.total };
    };
    const sequential = (path: string) => async () => {
      const r = await latency({
        url: server.url,
        seconds: SECONDS,
        connections: 1,
        headers,
        path: () => path,
      });
      if (r.non2xx > 0) throw new Error(`${path}: ${r.non2xx} answers were not 200`);
      return { rps: r.rps, total: r.rps * SECONDS };
    };
    await hammer({ url: `${server.url}/v0/pages?limit=20`, headers, seconds: 2 });
    const listPages = await measure(() =>
      hammer({ url: `${server.url}/v0/pages?limit=20`, headers, seconds: SECONDS }),
    );
    const getPage = await measure(sequential(`/v0/pages/${page?.pageId}`));
    const getAccount = await measure(sequential(`/v0/accounts/${accountId}`));
    let n = 0;
    const ingestion = await measure(() =>
      hammer({
        url: server.url,
        headers,
        seconds: SECONDS,
        requests: [
          {
            method: 'POST',
            path: '/v0/account_logs',
            setupRequest: (req) => {
              n += 1;
              const body = { source: 'bench', domain: `d${n % 500}.ab.example`, payload: { n } };
              return {
                ...req,
                headers: { ...req.headers, 'content-type': 'application/json' },
                body: JSON.stringify(body),
              };
            },
          },
        ],
      }),
    );
    return { listPages, getPage, getAccount, ingestion };
  } finally {
    await stopProcess(server);
  }
}

/** One dispatcher draining EVENTS, through the build's own webhooks worker. */
async function dispatcherFigures(build: Build): Promise<NonNullable<Figures['dispatch']>> {
  const out = await runJsonScript<DrainRoundOutput>(
    n24,
    webhooksWorker(build),
    { DATABASE_URL: hooksUrl, EVENTS: values.events, LATENCY_RATE: '20', LATENCY_SECONDS: '1' },
    { timeoutMs: 1_200_000 },
  );
  return {
    deliveriesPerS: out.one,
    dispatcherCpuPerDelivery: out.cpuOne?.dispatcher,
    postgresCpuPerDelivery: out.cpuOne?.postgres,
  };
}

const samples: Record<string, Figures[]> = Object.fromEntries(builds.map((b) => [b.label, []]));
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const figures: Figures = {
        ...(parts.has('server') ? await serverFigures(build) : {}),
        ...(parts.has('dispatch') ? { dispatch: await dispatcherFigures(build) } : {}),
      };
      samples[build.label]?.push(figures);
      process.stderr.write(`round ${round + 1}/${ROUNDS} ${build.label}: ${JSON.stringify(figures)}\n`);
    }
  }
} finally {
  await stopAll();
}

/** The figures of the table: name, and how to read it from a round's figures. */
const FIGURES: [string, (s: Figures) => number | undefined][] = [
  ['GET /v0/pages?limit=20, req/s', (s) => s.listPages?.rps],
  ['GET /v0/pages?limit=20, server CPU µs/request', (s) => s.listPages?.cpuPerRequest],
  ['sequential getPage, req/s', (s) => s.getPage?.rps],
  ['sequential getPage, server CPU µs/request', (s) => s.getPage?.cpuPerRequest],
  ['sequential getAccount, req/s', (s) => s.getAccount?.rps],
  ['sequential getAccount, server CPU µs/request', (s) => s.getAccount?.cpuPerRequest],
  ['POST /v0/account_logs, req/s', (s) => s.ingestion?.rps],
  ['POST /v0/account_logs, server CPU µs/request', (s) => s.ingestion?.cpuPerRequest],
  ['one dispatcher, deliveries/s', (s) => s.dispatch?.deliveriesPerS],
  ['one dispatcher, its CPU µs/delivery', (s) => s.dispatch?.dispatcherCpuPerDelivery],
  ['one dispatcher, PostgreSQL CPU µs/delivery', (s) => s.dispatch?.postgresCpuPerDelivery],
];
const fmt = (s: Spread) => `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
const measured = FIGURES.filter(([, read]) => {
  try {
    const first = samples.this?.[0];
    return first !== undefined && Number.isFinite(read(first));
  } catch {
    return false;
  }
});
const rows = measured.map(([name, read]) => {
  const [base, mine] = builds.map((b) => spread((samples[b.label] ?? []).map((s) => read(s) ?? Number.NaN)));
  const none = spread([]);
  const [baseline, self] = [base ?? none, mine ?? none];
  return { name, baseline, this: self, ratio: self.median / baseline.median };
});
const table = [
  `| Figure (${ROUNDS} alternating rounds, ${SECONDS} s loads) | baseline | this build | ratio |`,
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.baseline)} | ${fmt(r.this)} | ${r.ratio.toFixed(2)} |`),
].join('\n');
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(
  `${ROOT}bench/results/ab.json`,
  JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, rows, samples }, null, 2),
);
process.stdout.write(`${table}\n`);
