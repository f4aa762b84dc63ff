#!/usr/bin/env node
// pnpm --filter @customer-api/bench run ab --baseline=<checkout> [--rounds=4] [--seconds=8] [--only=server,dispatch]
// Same-run comparison of this checkout's build with another checkout's (built, with its own
// node_modules): rounds alternate which build goes first, each build's server starts fresh on the
// same PostgreSQL database, and every figure is a median (min-max) over rounds. Measured per build:
// GET /v0/pages?limit=20 at 50 connections (req/s, server CPU µs per request), sequential getPage
// and getAccount on one connection, POST /v0/account_logs at 50 connections, and one
// `customer-api dispatch` draining 2,000 events (each build's own webhooks worker). Prints a
// Markdown table and writes bench/results/ab.json. Needs PostgreSQL (BENCH_PG_URL) and Node 24.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDatabase, tenantKey } from './lib/db.mjs';
import { hammer, latency } from './lib/load.mjs';
import { api, startOurs } from './lib/ours.mjs';
import { cpuMicros, node24, ROOT, runJsonScript, stopAll, stopProcess } from './lib/proc.mjs';
import { spread } from './lib/stats.mjs';
import { seedPages } from './scenarios/overhead.mjs';

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
const ROUNDS = Number(values.rounds);
const parts = new Set(values.only.split(','));
const SECONDS = Number(values.seconds);
const builds = [
  { label: 'baseline', root: join(values.baseline, '/') },
  { label: 'this', root: ROOT },
];
const serverMain = (build) => `${build.root}apps/server/dist/main.js`;
const webhooksWorker = (build) => `${build.root}bench/src/scenarios/webhooks-worker.mjs`;
const n24 = node24();

const databaseUrl = await ensureDatabase('bench_ab');
const hooksUrl = await ensureDatabase('bench_ab_hooks', { fresh: true });
const { apiKey } = tenantKey(databaseUrl, 'bench-ab');

/** What one round measures of one build's server (started, measured, stopped). */
async function serverFigures(build) {
  const server = await startOurs({
    name: `ab-${build.label}`,
    bin: n24,
    main: serverMain(build),
    databaseUrl,
  });
  try {
    const headers = { 'x-api-key': apiKey };
    await seedPages(server, apiKey);
    const page = (await api(server.url, apiKey, 'GET', '/v0/pages?limit=1')).items[0];
    const log = await api(server.url, apiKey, 'POST', '/v0/account_logs', {
      source: 'bench',
      domain: 'ab.bench.example',
      payload: { n: 1 },
    });
    const accountId = log.accountId ?? log.account?.accountId;
    const measure = async (run) => {
      const cpu0 = cpuMicros(server.pid);
      const result = await run();
      return { rps: result.rps, cpuPerRequest: (cpuMicros(server.pid) - cpu0) / result.total };
    };
    const sequential = (path) => async () => {
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
    const getPage = await measure(sequential(`/v0/pages/${page.pageId}`));
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
async function dispatcherFigures(build) {
  const out = await runJsonScript(
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

const samples = Object.fromEntries(builds.map((b) => [b.label, []]));
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const figures = {
        ...(parts.has('server') ? await serverFigures(build) : {}),
        ...(parts.has('dispatch') ? { dispatch: await dispatcherFigures(build) } : {}),
      };
      samples[build.label].push(figures);
      process.stderr.write(`round ${round + 1}/${ROUNDS} ${build.label}: ${JSON.stringify(figures)}\n`);
    }
  }
} finally {
  await stopAll();
}

const FIGURES = [
  ['GET /v0/pages?limit=20, req/s', (s) => s.listPages.rps],
  ['GET /v0/pages?limit=20, server CPU µs/request', (s) => s.listPages.cpuPerRequest],
  ['sequential getPage, req/s', (s) => s.getPage.rps],
  ['sequential getPage, server CPU µs/request', (s) => s.getPage.cpuPerRequest],
  ['sequential getAccount, req/s', (s) => s.getAccount.rps],
  ['sequential getAccount, server CPU µs/request', (s) => s.getAccount.cpuPerRequest],
  ['POST /v0/account_logs, req/s', (s) => s.ingestion.rps],
  ['POST /v0/account_logs, server CPU µs/request', (s) => s.ingestion.cpuPerRequest],
  ['one dispatcher, deliveries/s', (s) => s.dispatch.deliveriesPerS],
  ['one dispatcher, its CPU µs/delivery', (s) => s.dispatch.dispatcherCpuPerDelivery],
  ['one dispatcher, PostgreSQL CPU µs/delivery', (s) => s.dispatch.postgresCpuPerDelivery],
];
const fmt = (s) => `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
const measured = FIGURES.filter(([, read]) => {
  try {
    return Number.isFinite(read(samples.this[0]));
  } catch {
    return false;
  }
});
const rows = measured.map(([name, read]) => {
  const [base, mine] = builds.map((b) => spread(samples[b.label].map(read)));
  return { name, baseline: base, this: mine, ratio: mine.median / base.median };
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
