// The measurements of a scenario 4 round: a backlog drained by one or two dispatchers, the same
// number of plain undici POSTs, commit-to-receipt latency at a fixed rate, and a large backlog over
// several tenants with the dispatcher's memory.
import { performance } from 'node:perf_hooks';
import { ensureTenant } from '@customer-api/server';
import { createWebhookSubscription } from '@customer-api/server/internals';
import { Pool } from 'undici';
import { rssMiB } from '../../lib/proc.js';
import type { BacklogResult, BacklogSample } from '../../results.js';
import {
  type CpuReading,
  cpuNow,
  POSTMASTERS,
  startDispatchers,
  stopDispatchers,
  until,
} from './dispatchers.js';
import { type EventSource, emit, emitAtRate, subject } from './events.js';
import { arrivals } from './receiver.js';

/** The dispatcher's default number of deliveries in flight. */
const CONCURRENCY = 16;
/** Tenants of the large backlog, one subscription each. */
const BACKLOG_TENANTS = 10;

/** A round's setting: its events' source, the receiver, the dispatchers' environment and sizes. */
export interface DrainRound extends EventSource {
  url: string;
  env: NodeJS.ProcessEnv;
  /** Transactions committed so far on the database (pg_stat_database). */
  transactions: () => Promise<number>;
  events: number;
  latencyRate: number;
  latencySeconds: number;
  backlog: number;
}

/** One drain's rate, transactions per delivery and CPU µs per delivery by process. */
export interface DrainFigures {
  rate: number;
  transactions: number;
  cpu: CpuReading | undefined;
}

/**
 * Deliveries/s of a backlog of EVENTS, first to last arrival (process start-up excluded); the
 * database transactions per delivery from the dispatchers' start to their stop (each of the
 * dispatcher's statements is one; start-up and this query's own add a few per round); and the CPU
 * per delivery, in µs, of the dispatchers, of PostgreSQL (every process of the server: this machine
 * runs nothing else on it during the drain) and of this process (the receiver), from the first
 * arrival to the last.
 */
export async function drain(round: DrainRound, dispatchers: number): Promise<DrainFigures> {
  const events = round.events;
  await emit(round, events);
  arrivals.received = 0;
  arrivals.firstAt = 0;
  const before = await round.transactions();
  const children = startDispatchers(dispatchers, round.env);
  let cpu: CpuReading | undefined;
  try {
    await until(1);
    const start = cpuNow(children);
    await until(events);
    const end = cpuNow(children);
    const perDelivery = (key: string) => ((end[key] ?? 0) - (start[key] ?? 0)) / (events - 1);
    cpu = {
      dispatcher: perDelivery('dispatcher'),
      postgres: perDelivery('postgres'),
      receiver: perDelivery('receiver'),
      ...Object.fromEntries(POSTMASTERS.map(([name]) => [name, perDelivery(name)])),
    };
  } finally {
    await stopDispatchers(children);
  }
  const after = await round.transactions();
  return {
    rate: (events - 1) / ((arrivals.lastAt - arrivals.firstAt) / 1000),
    transactions: (after - before - 1) / events,
    cpu,
  };
}

/** The same number of POSTs with undici, the same concurrency and a body of the same size. */
export async function plainUndici(round: DrainRound): Promise<number> {
  const events = round.events;
  const pool = new Pool(new URL(round.url).origin, { connections: CONCURRENCY });
  const body = JSON.stringify({
    type: 'page.version.created',
    data: subject(round.tenantId),
    padding: 'x'.repeat(200),
  });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events) {
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
  const rate = events / ((performance.now() - t0) / 1000);
  await pool.close();
  return rate;
}

/** Commit-to-receipt latency of events committed one at a time at LATENCY_RATE per second. */
export async function latency(round: DrainRound): Promise<{ p50: number; p99: number; samples: number }> {
  const rate = round.latencyRate;
  const children = startDispatchers(1, round.env);
  try {
    // One event delivered first: the dispatcher has started and listens (a loaded machine can take
    // seconds to start a process; that start-up is not delivery latency).
    arrivals.received = 0;
    await emit(round, 1);
    await until(1);
    // Then a second of events at the same rate, unmeasured: what the dispatcher prepares on its first
    // runs (its statements on each pooled connection) is start-up too.
    arrivals.received = 0;
    await emitAtRate(round, rate, rate);
    await until(rate);
    const total = rate * round.latencySeconds;
    arrivals.received = 0;
    const committed = await emitAtRate(round, total, rate);
    await until(total);
    const ms = [...committed]
      .map(([id, t]) => (arrivals.byVersion.get(id) ?? Number.NaN) - t)
      .sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)] ?? Number.NaN;
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
export async function backlog(round: DrainRound): Promise<BacklogResult> {
  const events = round.backlog;
  const tenants: string[] = [];
  for (let i = 0; i < BACKLOG_TENANTS; i += 1) {
    const tenant = await ensureTenant(round.deps, `bench-backlog-${Date.now()}-${i}`);
    await createWebhookSubscription(round.deps, tenant.tenantId, {
      url: round.url,
      eventTypes: ['page.version.*'],
    });
    tenants.push(tenant.tenantId);
  }
  const t0 = performance.now();
  await emit(round, events, tenants);
  const emitSeconds = (performance.now() - t0) / 1000;
  arrivals.byVersion.clear();
  arrivals.received = 0;
  arrivals.firstAt = 0;
  const children = startDispatchers(1, round.env, { WEBHOOKS_TENANT_CONCURRENCY: '4' });
  const pid = children[0]?.pid ?? 0;
  const samples: BacklogSample[] = [];
  const sampler = setInterval(() => {
    if (arrivals.received > 0)
      samples.push({
        t: (performance.now() - arrivals.firstAt) / 1000,
        delivered: arrivals.received,
        rss: rssMiB(pid),
      });
  }, 500);
  try {
    await until(events, 1_800_000);
  } finally {
    clearInterval(sampler);
    samples.push({
      t: (arrivals.lastAt - arrivals.firstAt) / 1000,
      delivered: arrivals.received,
      rss: rssMiB(pid),
    });
    await stopDispatchers(children);
  }
  // The start is taken after warm-up (the first 5 % delivered: JIT, pools and buffers filled), as
  // scenario 6 does for the server.
  const warm = samples.filter((x) => x.delivered >= events / 20);
  const start = warm[0]?.rss ?? Number.NaN;
  const rss = warm.map((x) => x.rss);
  return {
    events,
    tenants: BACKLOG_TENANTS,
    emitSeconds,
    rate: (events - 1) / ((arrivals.lastAt - arrivals.firstAt) / 1000),
    rssStart: start,
    rssEnd: rss.at(-1),
    rssMin: Math.min(...rss),
    rssMax: Math.max(...rss),
    maxDeviation: Math.max(...rss.map((r) => Math.abs(r - start) / start)),
    samples,
  };
}

/** What a round prints (webhooks-worker.ts): each phase's figures, absent when PHASES skipped it. */
export interface DrainRoundOutput {
  events: number;
  one?: number;
  two?: number;
  undici?: number;
  transactionsOne?: number;
  transactionsTwo?: number;
  cpuOne?: CpuReading;
  cpuTwo?: CpuReading;
  latency?: { p50: number; p99: number; samples: number };
  backlog?: BacklogResult;
  database: string;
}
