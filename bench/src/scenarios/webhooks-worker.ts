// One round of scenario 4, run on Node 24 by the harness (folded in from the webhooks engineer's
// delivery script). A loopback receiver answers 200 at once; `customer-api dispatch` processes
// deliver a backlog (events/s with one and with two dispatchers); plain undici POSTs of the same
// bodies to the same receiver give the baseline; then events committed at a fixed moderate rate
// give the commit-to-receipt latency; database transactions per delivery beside each drain. Prints
// one JSON line. BENCH_WEBHOOKS_PROFILE=<dir> writes each dispatcher process's CPU profile there
// (node --cpu-prof); BENCH_WEBHOOKS_NODE_ARGS adds Node options to the dispatcher processes.
// PHASES (default `one,two,undici,latency,backlog`; backlog only with BACKLOG) picks the measurements; POSTMASTERS (JSON, name to
// postmaster pid) adds the CPU per delivery of each of those PostgreSQL instances to the drains'.
// A dispatcher that exits before its deliveries arrive fails the round at once; DELIVERY_TIMEOUT_MS
// (default 120 s) bounds the wait for a drain's deliveries otherwise; DISPATCH_LOG_LEVEL sets the
// dispatchers' LOG_LEVEL (default silent). A failed round's error quotes what they logged.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ensureTenant, newId } from '@customer-api/server';
import { createWebhookSubscription, recordVersionEvent } from '@customer-api/server/internals';
import { SERVER_CLI, stopProcess } from '@customer-api/test-server';
import pg from 'pg';
import { Pool } from 'undici';
import { clusterCpuMicros } from '../lib/clusters.mjs';
import { openDispatchSetup } from '../lib/dispatch-setup.mjs';
import { cpuMicros, rssMiB } from '../lib/proc.mjs';

const EVENTS = Number(process.env.EVENTS ?? 2000);
const LATENCY_RATE = Number(process.env.LATENCY_RATE ?? 20);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 5);
/** Events of the large backlog case (0: skipped), spread over BACKLOG_TENANTS one-subscription tenants. */
const BACKLOG = Number(process.env.BACKLOG ?? 0);
const BACKLOG_TENANTS = 10;
const CONCURRENCY = 16; // the dispatcher's default number of deliveries in flight
const PHASES = new Set((process.env.PHASES ?? 'one,two,undici,latency,backlog').split(','));
/** PostgreSQL instances whose CPU per delivery the drains report, by name: their postmasters' pids. */
const POSTMASTERS = Object.entries(JSON.parse(process.env.POSTMASTERS ?? '{}'));

// One tenant's backlog: its share is the whole dispatcher here, so the rate is the machine's own
// (the default share of 4 per tenant would measure the fairness cap instead).
const { env, database, deps } = await openDispatchSetup(process.env.DATABASE_URL);
// Transactions of every process on the bench database, from PostgreSQL's statistics (a backend
// reports its own when it ends, and the dispatchers' backends end with them).
const stats = new pg.Client({ connectionString: process.env.DATABASE_URL });
await stats.connect();
const transactions = async () =>
  Number(
    (
      await stats.query(
        'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
      )
    ).rows[0].n,
  );

// Receiver: counts arrivals and, for latency, maps versionId -> arrival time.
let received = 0;
let firstAt = 0;
let lastAt = 0;
const arrivals = new Map();
const waiters = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = performance.now();
    received += 1;
    if (!firstAt) firstAt = now;
    lastAt = now;
    const m = /"versionId":"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'));
    if (m) arrivals.set(m[1], now);
    res.writeHead(200).end();
    for (const w of waiters.splice(0)) w();
  });
});
receiver.keepAliveTimeout = 60_000;
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const url = `http://127.0.0.1:${receiver.address().port}/hooks`;

const { tenantId } = await ensureTenant(deps, `bench-hooks-${Date.now()}`);
await createWebhookSubscription(deps, tenantId, { url, eventTypes: ['page.version.*'] });

const subject = () => ({
  tenantId,
  pageId: newId('page'),
  audienceId: newId('audience'),
  versionId: newId('version'),
  status: 'draft',
  createdAt: new Date(),
});
async function emit(count, tenants = [tenantId]) {
  const ids = [];
  for (let i = 0; i < count; i += 200) {
    await database.db.transaction(async (tx) => {
      for (let j = i; j < Math.min(count, i + 200); j += 1) {
        const s = { ...subject(), tenantId: tenants[j % tenants.length] };
        ids.push(s.versionId);
        await recordVersionEvent(tx, deps, 'page.version.created', s);
      }
    });
  }
  return ids;
}
/** Why a dispatcher stopped before it was stopped. */
let dispatcherFailure;
/** Each distinct line the dispatchers wrote (a log entry's message and its error's), and how often. */
const dispatcherLines = new Map();
function noteDispatcherLine(line) {
  let text = line.trim();
  if (!text) return;
  try {
    const entry = JSON.parse(text);
    text = [entry.msg, entry.err?.message].filter(Boolean).join(': ');
  } catch {}
  text = text.slice(0, 300);
  if (dispatcherLines.size < 20 || dispatcherLines.has(text))
    dispatcherLines.set(text, (dispatcherLines.get(text) ?? 0) + 1);
}
/** Calls {@link noteDispatcherLine} with each whole line of `stream`. */
function readLines(stream) {
  let partial = '';
  stream.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) noteDispatcherLine(line);
  });
  stream.on('end', () => noteDispatcherLine(partial));
}
const said = () =>
  dispatcherLines.size
    ? `; the dispatchers wrote: ${[...dispatcherLines].map(([text, n]) => `"${text}" × ${n}`).join('; ')}`
    : '';
const until = (count, ms = Number(process.env.DELIVERY_TIMEOUT_MS ?? 120_000)) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`only ${received} of ${count} deliveries arrived${said()}`)),
      ms,
    );
    const check = () => {
      if (dispatcherFailure) {
        clearTimeout(timer);
        return reject(dispatcherFailure);
      }
      if (received < count) return waiters.push(check);
      clearTimeout(timer);
      resolve();
    };
    check();
  });

function dispatcherArgs() {
  const dir = process.env.BENCH_WEBHOOKS_PROFILE;
  const extra = process.env.BENCH_WEBHOOKS_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), SERVER_CLI, 'dispatch'];
}

function startDispatchers(n, extraEnv = {}) {
  return Array.from({ length: n }, () => {
    const logLevel = process.env.DISPATCH_LOG_LEVEL ? { LOG_LEVEL: process.env.DISPATCH_LOG_LEVEL } : {};
    const child = spawn(process.execPath, dispatcherArgs(), {
      env: { ...process.env, ...env, ...logLevel, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    readLines(child.stdout);
    readLines(child.stderr);
    child.once('exit', (code, signal) => {
      if (child.stopping) return;
      dispatcherFailure = new Error(`customer-api dispatch exited (${code ?? signal})${said()}`);
      for (const w of waiters.splice(0)) w();
    });
    return child;
  });
}
async function stopDispatchers(children) {
  for (const c of children) c.stopping = true;
  await Promise.all(children.map((c) => stopProcess(c)));
}

/** CPU microseconds a process has used ({@link cpuMicros}); 0 once it is gone. */
function cpuMicrosOr0(pid) {
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
}

/** CPU microseconds used so far by the dispatchers, by every PostgreSQL process, and by this process. */
function cpuNow(children) {
  let postgres = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) postgres += cpuMicrosOr0(pid);
    } catch {}
  }
  const own = process.cpuUsage();
  return {
    dispatcher: children.reduce((sum, c) => sum + cpuMicrosOr0(c.pid), 0),
    postgres,
    receiver: own.user + own.system,
    ...Object.fromEntries(POSTMASTERS.map(([name, pid]) => [name, clusterCpuMicros(pid)])),
  };
}

/**
 * Deliveries/s of a backlog of EVENTS, first to last arrival (process start-up excluded); the
 * database transactions per delivery from the dispatchers' start to their stop (each of the
 * dispatcher's statements is one; start-up and this query's own add a few per round); and the CPU
 * per delivery, in µs, of the dispatchers, of PostgreSQL (every process of the server: this machine
 * runs nothing else on it during the drain) and of this process (the receiver), from the first
 * arrival to the last.
 */
async function drain(dispatchers) {
  await emit(EVENTS);
  received = 0;
  firstAt = 0;
  const before = await transactions();
  const children = startDispatchers(dispatchers);
  let cpu;
  try {
    await until(1);
    const start = cpuNow(children);
    await until(EVENTS);
    const end = cpuNow(children);
    const perDelivery = (key) => (end[key] - start[key]) / (EVENTS - 1);
    cpu = {
      dispatcher: perDelivery('dispatcher'),
      postgres: perDelivery('postgres'),
      receiver: perDelivery('receiver'),
      ...Object.fromEntries(POSTMASTERS.map(([name]) => [name, perDelivery(name)])),
    };
  } finally {
    await stopDispatchers(children);
  }
  const after = await transactions();
  return {
    rate: (EVENTS - 1) / ((lastAt - firstAt) / 1000),
    transactions: (after - before - 1) / EVENTS,
    cpu,
  };
}

/** The same number of POSTs with undici, the same concurrency and a body of the same size. */
async function plainUndici() {
  const pool = new Pool(new URL(url).origin, { connections: CONCURRENCY });
  const body = JSON.stringify({ type: 'page.version.created', data: subject(), padding: 'x'.repeat(200) });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        const res = await pool.request({
          method: 'POST',
          path: '/hooks',
          body,
          headers: { 'content-type': 'application/json' },
        });
        await res.body.dump();
      }
    }),
  );
  const rate = EVENTS / ((performance.now() - t0) / 1000);
  await pool.close();
  return rate;
}

/** Emits `count` events one at a time at LATENCY_RATE/s; returns each one's commit instant by id. */
async function emitAtRate(count) {
  const committed = new Map();
  for (let i = 0; i < count; i += 1) {
    const [id] = await emit(1);
    committed.set(id, performance.now());
    await new Promise((r) => setTimeout(r, 1000 / LATENCY_RATE));
  }
  return committed;
}

/** Commit-to-receipt latency of events committed one at a time at LATENCY_RATE per second. */
async function latency() {
  const children = startDispatchers(1);
  try {
    // One event delivered first: the dispatcher has started and listens (a loaded machine can take
    // seconds to start a process; that start-up is not delivery latency).
    received = 0;
    await emit(1);
    await until(1);
    // Then a second of events at the same rate, unmeasured: what the dispatcher prepares on its first
    // runs (its statements on each pooled connection) is start-up too.
    received = 0;
    await emitAtRate(LATENCY_RATE);
    await until(LATENCY_RATE);
    const total = LATENCY_RATE * LATENCY_SECONDS;
    received = 0;
    const committed = await emitAtRate(total);
    await until(total);
    const ms = [...committed].map(([id, t]) => arrivals.get(id) - t).sort((a, b) => a - b);
    const at = (p) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)];
    return { p50: at(0.5), p99: at(0.99), samples: ms.length };
  } finally {
    await stopDispatchers(children);
  }
}

/**
 * BACKLOG pending events over ten tenants with one subscription each, drained by one dispatcher
 * with the default per-tenant share (4 of its 16 slots): the rate, and the dispatcher's RSS from
 * warm-up to the last arrival, sampled every 500 ms.
 */
async function backlog() {
  const tenants = [];
  for (let i = 0; i < BACKLOG_TENANTS; i += 1) {
    const tenant = await ensureTenant(deps, `bench-backlog-${Date.now()}-${i}`);
    await createWebhookSubscription(deps, tenant.tenantId, { url, eventTypes: ['page.version.*'] });
    tenants.push(tenant.tenantId);
  }
  const t0 = performance.now();
  await emit(BACKLOG, tenants);
  const emitSeconds = (performance.now() - t0) / 1000;
  arrivals.clear();
  received = 0;
  firstAt = 0;
  const [child] = startDispatchers(1, { WEBHOOKS_TENANT_CONCURRENCY: '4' });
  const samples = [];
  const sampler = setInterval(() => {
    if (received > 0)
      samples.push({ t: (performance.now() - firstAt) / 1000, delivered: received, rss: rssMiB(child.pid) });
  }, 500);
  try {
    await until(BACKLOG, 1_800_000);
  } finally {
    clearInterval(sampler);
    samples.push({ t: (lastAt - firstAt) / 1000, delivered: received, rss: rssMiB(child.pid) });
    await stopDispatchers([child]);
  }
  // The start is taken after warm-up (the first 5 % delivered: JIT, pools and buffers filled), as
  // scenario 6 does for the server.
  const warm = samples.filter((x) => x.delivered >= BACKLOG / 20);
  const start = warm[0]?.rss ?? Number.NaN;
  const rss = warm.map((x) => x.rss);
  return {
    events: BACKLOG,
    tenants: BACKLOG_TENANTS,
    emitSeconds,
    rate: (BACKLOG - 1) / ((lastAt - firstAt) / 1000),
    rssStart: start,
    rssEnd: rss.at(-1),
    rssMin: Math.min(...rss),
    rssMax: Math.max(...rss),
    maxDeviation: Math.max(...rss.map((r) => Math.abs(r - start) / start)),
    samples,
  };
}

/** Runs `measure` when PHASES names it; a failure ends the round with its message on stdout (for the harness's error). */
async function phase(name, measure) {
  if (!PHASES.has(name)) return undefined;
  try {
    return await measure();
  } catch (error) {
    process.stdout.write(`${name}: ${error.message}\n`);
    process.exit(1);
  }
}
const { rate: one, transactions: transactionsOne, cpu: cpuOne } = (await phase('one', () => drain(1))) ?? {};
const { rate: two, transactions: transactionsTwo, cpu: cpuTwo } = (await phase('two', () => drain(2))) ?? {};
const undici = await phase('undici', plainUndici);
const lat = await phase('latency', latency);
const large = BACKLOG > 0 ? await phase('backlog', backlog) : undefined;
receiver.close();
await stats.end();
await database.close();
process.stdout.write(
  `${JSON.stringify({ events: EVENTS, one, two, undici, transactionsOne, transactionsTwo, cpuOne, cpuTwo, latency: lat, backlog: large, database: database.kind })}\n`,
);
