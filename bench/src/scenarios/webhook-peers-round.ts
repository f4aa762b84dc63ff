// One round of the webhook peers scenario, run on Node 24 by the harness on a fresh database: the
// same events delivered by ours (1 and 2 `customer-api dispatch` processes, and 1 purging an expired
// pile beside the drain: webhook-peers-round/expired.ts), graphile-worker (two
// settings), pg-boss, BullMQ (on a Redis of its own) and plain undici POSTs to one loopback
// receiver answering 200 at once in a process of its own (../lib/webhook-receiver.ts), the systems
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
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureTenant, newId } from '@customer-api/server';
import { createWebhookSubscription } from '@customer-api/server/internals';
import pg from 'pg';
import { openDispatchSetup } from '../lib/dispatch-setup.js';
import { startRedisServer } from '../lib/redis-server.js';
import { startReceiver } from '../lib/webhook-receiver.js';
import type { PeerRound } from './webhook-peers-enqueue.js';
import {
  crash,
  drain,
  latency,
  type PeerRoundOutput,
  type SystemRound,
} from './webhook-peers-round/measures.js';
import type { RoundSetting } from './webhook-peers-round/workers.js';
import { makeJob } from './webhook-peers-settings.js';
import { SYSTEMS } from './webhook-peers-systems.js';

const SIZES = (process.env.SIZES ?? '2000,10000').split(',').map(Number);
const ROUND = Number(process.env.ROUND ?? 0);
const TENANTS = Number(process.env.TENANTS ?? 4);
const LATENCY_RATE = Number(process.env.LATENCY_RATE ?? 20);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 5);
const CRASH_EVENTS = Number(process.env.CRASH_EVENTS ?? 2000);
const WARMUP_EVENTS = Number(process.env.WARMUP_EVENTS ?? 2000);
const databaseUrl = process.env.DATABASE_URL ?? '';

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

const tenants: string[] = [];
for (let i = 0; i < TENANTS; i += 1) {
  const { tenantId } = await ensureTenant(deps, `bench-peers-${Date.now()}-${i}`);
  await createWebhookSubscription(deps, tenantId, { url: targetUrl, eventTypes: ['page.version.*'] });
  tenants.push(tenantId);
}
const round: PeerRound = {
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
const setting: RoundSetting = {
  receiver,
  pool,
  redis,
  round,
  jobsFor: (count) => Array.from({ length: count }, (_, i) => makeJob(tenants[i % tenants.length] ?? '')),
};

const only = process.env.SYSTEMS_ONLY?.split(',');
const chosen = only ? SYSTEMS.filter((s) => only.includes(s.name)) : SYSTEMS;
const order = chosen.flatMap((_, i) => chosen[(i + ROUND) % chosen.length] ?? []);
const results: Record<string, SystemRound> = Object.fromEntries(chosen.map((s) => [s.name, { drains: {} }]));
const of = (name: string): SystemRound => results[name] ?? { drains: {} };
const began = performance.now();
const step = (line: string) =>
  process.stderr.write(
    `  peers round ${ROUND + 1} [${((performance.now() - began) / 1000).toFixed(0)} s]: ${line}\n`,
  );
const phases = new Set((process.env.PHASES ?? (only ? 'drains' : 'drains,logged,latency,crash')).split(','));
for (const size of phases.has('drains') ? SIZES : []) {
  for (const system of order) {
    step(`${system.name} drains ${size}`);
    of(system.name).drains[size] = await drain(setting, system, size, WARMUP_EVENTS);
  }
}
const largest = Math.max(...SIZES);
for (const system of phases.has('logged')
  ? order.filter((s) => !s.name.startsWith('ours') && s.name !== 'undici')
  : []) {
  step(`${system.name} drains ${largest}, writing a log row per delivery`);
  of(system.name).logged = await drain(setting, system, largest, WARMUP_EVENTS, { logRow: true });
}
// Latency and kill -9: the systems with one worker process and a queue (not undici).
const singles = order.filter((s) => s.processes === 1 && s.name !== 'undici' && !s.purging);
for (const system of phases.has('latency') ? singles : []) {
  step(`${system.name} latency`);
  of(system.name).latency = await latency(setting, system, LATENCY_RATE, LATENCY_SECONDS);
}
for (const system of phases.has('crash') ? singles : []) {
  step(`${system.name} kill -9`);
  of(system.name).crash = await crash(setting, system, CRASH_EVENTS);
}
await receiver.stop();
rmSync(round.jobsFile, { force: true });
await redis.stop();
await pool.end();
await database.close();
const output: PeerRoundOutput = { sizes: SIZES, tenants: TENANTS, order: order.map((s) => s.name), results };
process.stdout.write(`${JSON.stringify(output)}\n`);
process.exit(0);
