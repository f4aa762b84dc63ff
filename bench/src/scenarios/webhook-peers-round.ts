// One round of the webhook peers scenario, run on Node 24 by the harness on a fresh database: the
// same events delivered by ours (1 and 2 `customer-api dispatch` processes), graphile-worker (two
// settings), pg-boss, BullMQ (on a Redis of its own) and plain undici POSTs to one loopback
// receiver answering 200 at once in a process of its own (../lib/webhook-receiver.mjs), the systems
// in an order rotated by ROUND. Per system: backlogs of each of SIZES events over TENANTS tenants,
// each drained by worker processes started for it and first warmed by a drain of WARMUP_EVENTS
// (default 2000) events, unmeasured (the database vacuumed before, checkpointed after), and the
// backlog committed at once while the workers idle, with the planner's statistics taken in its
// transaction (enqueue timed apart, without that ANALYZE); deliveries/s from the first to the last
// arrival, with CPU per delivery of workers, database and receiver from the commit to the last
// arrival, and peak worker RSS; the largest again with one delivery-log row written per peer job;
// commit-to-receipt latency at LATENCY_RATE events/s; and a kill -9 of the worker a third into a
// stream of CRASH_EVENTS still being committed, with duplicates and losses counted. Prints one JSON
// line.
// While working on the engine: SYSTEMS_ONLY=ours,graphile-worker-local-queue runs some systems
// (their drains only; PHASES=drains,logged,latency,crash picks the steps), LATENCY_SERIES=1 prints
// each latency event's commit and receipt instants (ms since the epoch) to stderr, and
// BENCH_PEERS_PROFILE=<dir> writes each worker process's CPU profile there (node --cpu-prof,
// file names starting with the system's name).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureTenant, newId } from '@customer-api/server';
import { createWebhookSubscription } from '@customer-api/server/internals';
import { stopProcess } from '@customer-api/test-server';
import pg from 'pg';
import { openDispatchSetup } from '../lib/dispatch-setup.mjs';
import { cpuMicros, rssMiB } from '../lib/proc.mjs';
import { startRedisServer } from '../lib/redis-server.mjs';
import { hrNow, startReceiver } from '../lib/webhook-receiver.mjs';
import { LEASE_SECONDS, makeJob, SYSTEMS, workerCommand } from './webhook-peers-systems.mjs';

const SIZES = (process.env.SIZES ?? '2000,10000').split(',').map(Number);
const ROUND = Number(process.env.ROUND ?? 0);
const TENANTS = Number(process.env.TENANTS ?? 4);
const LATENCY_RATE = Number(process.env.LATENCY_RATE ?? 20);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 5);
const CRASH_EVENTS = Number(process.env.CRASH_EVENTS ?? 2000);
const WARMUP_EVENTS = Number(process.env.WARMUP_EVENTS ?? 2000);
const databaseUrl = process.env.DATABASE_URL;

const { env: oursEnv, database, deps } = await openDispatchSetup(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
await pool.query(`CREATE TABLE IF NOT EXISTS peer_delivery_log (
  id bigserial PRIMARY KEY, tenant_id text NOT NULL, event_id text NOT NULL, status int NOT NULL,
  duration_ms double precision NOT NULL, attempted_at timestamptz NOT NULL DEFAULT now())`);
await pool.query(
  'CREATE INDEX IF NOT EXISTS peer_delivery_log_tenant ON peer_delivery_log (tenant_id, attempted_at)',
);
const redis = await startRedisServer();
const receiver = await startReceiver();
const targetUrl = receiver.url;

// A worker process that exits unasked fails the wait under way ({@link arrived}).
let failure = '';
const onFailure = new Set();
/** Resolves once `count` distinct expected events of the current run have arrived; rejects after `ms`. */
async function arrived(count, ms) {
  const wait = receiver.wait(count);
  let timer;
  let fail;
  try {
    return await Promise.race([
      wait.done,
      new Promise((_, reject) => {
        fail = () => reject(new Error(failure));
        if (failure) fail();
        onFailure.add(fail);
        timer = setTimeout(async () => {
          const { arrived: n } = await receiver.state();
          reject(new Error(`only ${n} of ${count} deliveries arrived in ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    onFailure.delete(fail);
    await receiver.cancel(wait.id);
  }
}
/** A new run: the receiver forgets the arrivals so far. */
const newRun = () => receiver.reset();

const tenants = [];
for (let i = 0; i < TENANTS; i += 1) {
  const { tenantId } = await ensureTenant(deps, `bench-peers-${Date.now()}-${i}`);
  await createWebhookSubscription(deps, tenantId, { url: targetUrl, eventTypes: ['page.version.*'] });
  tenants.push(tenantId);
}
const round = {
  databaseUrl,
  redisUrl: redis.url,
  targetUrl,
  secret: `whsec_${Buffer.from(newId('secret')).toString('base64')}`,
  tenants,
  database,
  deps,
  pool,
  oursEnv,
  jobsFile: join(tmpdir(), `bench-peers-jobs-${process.pid}.json`),
  // The worker processes under way (the undici system sends its jobs to them).
  workers: [],
};
const jobsFor = (count) => Array.from({ length: count }, (_, i) => makeJob(tenants[i % tenants.length]));
const expect = (jobs) => receiver.expect(jobs.map((job) => job.payload.versionId));

/** Worker processes of `system`, started; one that exits unasked fails the wait under way ({@link arrived}). */
async function startWorkers(system, options) {
  const { args, env } = workerCommand(system, round, options);
  const dir = process.env.BENCH_PEERS_PROFILE;
  const ipc = system.name === 'undici';
  failure = '';
  const children = Array.from({ length: system.processes }, (_, i) => {
    const name = `${system.name}-${Date.now()}-${i}.cpuprofile`;
    const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`] : [];
    const child = spawn(process.execPath, [...profile, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', ...(ipc ? ['ipc'] : [])],
    });
    child.once('exit', (code, signal) => {
      if (child.stopping) return;
      failure = `a ${system.name} worker exited unasked (${code ?? signal})`;
      for (const fail of onFailure) fail();
    });
    return child;
  });
  if (ipc) await Promise.all(children.map((c) => once(c, 'message')));
  round.workers = children;
  return children;
}
const stopWorkers = (children) =>
  Promise.all(
    children.map((c) => {
      c.stopping = true;
      return stopProcess(c, 10_000);
    }),
  );
const cpuOr0 = (pid) => {
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
};

/**
 * CPU µs so far of the workers, the database (this database's backends and the server's own
 * processes, not another database's autovacuum; Redis for BullMQ) and the receiver.
 */
async function cpuNow(system, children) {
  const { rows } = await pool.query(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() OR (datname IS NULL AND backend_type <> 'client backend')`,
  );
  const pids = rows.map((r) => r.pid);
  return {
    pg: new Map(pids.map((pid) => [pid, cpuOr0(pid)])),
    redis: system.name === 'bullmq' ? cpuOr0(redis.pid) : 0,
    workers: children.reduce((sum, c) => sum + cpuOr0(c.pid), 0),
    receiver: cpuOr0(receiver.pid),
  };
}
function cpuPerDelivery(start, end, n) {
  let pg = 0;
  for (const [pid, micros] of end.pg) pg += micros - (start.pg.get(pid) ?? 0);
  return {
    workers: (end.workers - start.workers) / n,
    database: (pg + end.redis - start.redis) / n,
    pg: pg / n,
    receiver: (end.receiver - start.receiver) / n,
  };
}

/**
 * A backlog of `size` events drained by `system`'s worker processes. The database is vacuumed
 * first (the dead rows of the systems before are not this one's to clean up), the workers started
 * and warmed by WARMUP_EVENTS deliveries, unmeasured, and a CHECKPOINT taken (the pages the systems
 * before dirtied are not this one's to write). Then the backlog becomes available at once (one
 * commit, after an ANALYZE in its transaction; BullMQ: added while its queue is paused, then
 * resumed) while the warm workers idle: the enqueue is timed apart, deliveries/s from the first to
 * the last arrival, CPU from the commit to the last arrival.
 */
async function drain(system, size, { logRow = false } = {}) {
  await newRun();
  await pool.query('VACUUM');
  const conn = await system.connect(round);
  const children = await startWorkers(system, { logRow });
  let rss = 0;
  const sampler = setInterval(() => {
    for (const c of children) rss = Math.max(rss, rssOr0(c.pid));
  }, 200);
  try {
    if (WARMUP_EVENTS > 0) {
      const warm = jobsFor(WARMUP_EVENTS);
      await expect(warm);
      await conn.enqueue(warm);
      await arrived(WARMUP_EVENTS, 600_000);
    }
    await pool.query('CHECKPOINT');
    await newRun();
    const jobs = jobsFor(size);
    await expect(jobs);
    const t0 = hrNow();
    const { analyzeMs = 0 } = (await conn.enqueue(jobs, { backlog: true })) ?? {};
    const committedAt = hrNow();
    const start = await cpuNow(system, children);
    const got = await arrived(size, 600_000);
    const end = await cpuNow(system, children);
    for (const c of children) rss = Math.max(rss, rssOr0(c.pid));
    return {
      rate: (size - 1) / ((got.lastAt - got.firstAt) / 1000),
      fromCommit: size / ((got.lastAt - committedAt) / 1000),
      enqueueSeconds: (committedAt - t0 - analyzeMs) / 1000,
      analyzeSeconds: analyzeMs / 1000,
      cpu: cpuPerDelivery(start, end, size),
      rssMiB: rss,
    };
  } finally {
    clearInterval(sampler);
    await stopWorkers(children);
    await conn.close();
  }
}
function rssOr0(pid) {
  try {
    return rssMiB(pid);
  } catch {
    return 0;
  }
}

/** Commits `count` events one at a time at LATENCY_RATE/s; returns each one's commit instant. */
async function commitAtRate(conn, count) {
  const committed = new Map();
  for (let i = 0; i < count; i += 1) {
    const jobs = jobsFor(1);
    await expect(jobs);
    await conn.enqueue(jobs);
    committed.set(jobs[0].payload.versionId, hrNow());
    await new Promise((r) => setTimeout(r, 1000 / LATENCY_RATE));
  }
  return committed;
}

/** Commit-to-receipt of events committed one at a time at LATENCY_RATE/s to one idle worker. */
async function latency(system) {
  const conn = await system.connect(round);
  await newRun();
  const children = await startWorkers(system, {});
  try {
    // One event delivered first: the worker has started and listens (start-up is not latency).
    const warm = jobsFor(1);
    await expect(warm);
    await conn.enqueue(warm);
    await arrived(1, 120_000);
    // Then a second of events at the same rate, unmeasured: what the worker prepares or compiles on
    // its first runs (prepared statements on each pooled connection, optimised code) is start-up too.
    const warming = await commitAtRate(conn, LATENCY_RATE);
    await arrived(1 + warming.size, 60_000);
    await newRun();
    const total = Math.round(LATENCY_RATE * LATENCY_SECONDS);
    const committed = await commitAtRate(conn, total);
    await arrived(total, 60_000);
    const got = await receiver.arrivals([...committed.keys()]);
    const instants = [...committed.values()].map((sent, i) => [sent, got[i]]);
    if (process.env.LATENCY_SERIES) {
      const offset = Date.now() - hrNow();
      const epoch = (t) => +(t + offset).toFixed(3);
      const pairs = instants.map(([sent, at]) => [epoch(sent), epoch(at)]);
      process.stderr.write(`latency series ${JSON.stringify(pairs)}\n`);
    }
    const ms = instants.map(([sent, at]) => at - sent).sort((a, b) => a - b);
    const at = (p) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)];
    return { p50: at(0.5), p99: at(0.99), samples: ms.length };
  } finally {
    await stopWorkers(children);
    await conn.close();
  }
}

/**
 * CRASH_EVENTS committed in batches of 20 while one worker delivers them; a third of the way the
 * worker is killed -9, the supervisor's step for a dead worker runs (graphile-worker's forced
 * unlock; the others' leases run out), and a new worker starts. Every committed event must arrive;
 * duplicates are arrivals beyond the first of an event.
 */
async function crash(system) {
  const conn = await system.connect(round);
  await newRun();
  let children = await startWorkers(system, {});
  let killedAt = 0;
  try {
    const producing = (async () => {
      for (let i = 0; i < CRASH_EVENTS; i += 20) {
        const jobs = jobsFor(Math.min(20, CRASH_EVENTS - i));
        await expect(jobs);
        await conn.enqueue(jobs);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await arrived(Math.floor(CRASH_EVENTS / 3), 120_000);
    const [victim] = children;
    victim.stopping = true;
    const exited = once(victim, 'exit');
    victim.kill('SIGKILL');
    await exited;
    killedAt = hrNow();
    const deliveredAtKill = (await receiver.state()).arrived;
    await conn.afterKill();
    children = await startWorkers(system, {});
    await producing;
    // What has not arrived within the budget counts as lost; a worker that dies unasked fails the round.
    const budgetMs = LEASE_SECONDS * 1000 + 120_000;
    await arrived(CRASH_EVENTS, budgetMs).catch((error) => {
      if (failure) throw error;
    });
    const got = await receiver.state();
    return {
      events: CRASH_EVENTS,
      deliveredAtKill,
      delivered: got.arrived,
      lost: CRASH_EVENTS - got.arrived,
      duplicates: got.total - got.arrived,
      secondsAfterKill: (got.lastAt - killedAt) / 1000,
    };
  } finally {
    await stopWorkers(children);
    await conn.close();
  }
}

const only = process.env.SYSTEMS_ONLY?.split(',');
const chosen = only ? SYSTEMS.filter((s) => only.includes(s.name)) : SYSTEMS;
const order = chosen.map((_, i) => chosen[(i + ROUND) % chosen.length]);
const results = Object.fromEntries(chosen.map((s) => [s.name, { drains: {} }]));
const began = performance.now();
const step = (line) =>
  process.stderr.write(
    `  peers round ${ROUND + 1} [${((performance.now() - began) / 1000).toFixed(0)} s]: ${line}\n`,
  );
const phases = new Set((process.env.PHASES ?? (only ? 'drains' : 'drains,logged,latency,crash')).split(','));
for (const size of phases.has('drains') ? SIZES : []) {
  for (const system of order) {
    step(`${system.name} drains ${size}`);
    results[system.name].drains[size] = await drain(system, size);
  }
}
const largest = Math.max(...SIZES);
for (const system of phases.has('logged')
  ? order.filter((s) => !s.name.startsWith('ours') && s.name !== 'undici')
  : []) {
  step(`${system.name} drains ${largest}, writing a log row per delivery`);
  results[system.name].logged = await drain(system, largest, { logRow: true });
}
// Latency and kill -9: the systems with one worker process and a queue (not undici).
const singles = order.filter((s) => s.processes === 1 && s.name !== 'undici');
for (const system of phases.has('latency') ? singles : []) {
  step(`${system.name} latency`);
  results[system.name].latency = await latency(system);
}
for (const system of phases.has('crash') ? singles : []) {
  step(`${system.name} kill -9`);
  results[system.name].crash = await crash(system);
}
await receiver.stop();
rmSync(round.jobsFile, { force: true });
await redis.stop();
await pool.end();
await database.close();
process.stdout.write(
  `${JSON.stringify({ sizes: SIZES, tenants: TENANTS, order: order.map((s) => s.name), results })}\n`,
);
process.exit(0);
