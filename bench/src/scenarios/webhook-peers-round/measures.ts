// The steps of a webhook peers round for one system: a backlog drained by warm workers, commit-to-
// receipt latency at a fixed rate, and a kill -9 of a worker in the middle of a stream of events.
import { once } from 'node:events';
import { hrNow } from '../../lib/webhook-receiver.js';
import type { PeerConnection } from '../webhook-peers-enqueue.js';
import { LEASE_SECONDS, type PeerJob } from '../webhook-peers-settings.js';
import type { PeerSystem } from '../webhook-peers-systems.js';
import { dropExpired, expiredLeft, insertExpired, purgeUnderWay } from './expired.js';
import {
  arrived,
  cpuNow,
  cpuPerDelivery,
  type RoundSetting,
  rssOr0,
  startWorkers,
  stopWorkers,
  workerFailure,
} from './workers.js';

/** One drain's figures. */
export interface DrainFigures {
  rate: number;
  fromCommit: number;
  enqueueSeconds: number;
  analyzeSeconds: number;
  cpu: ReturnType<typeof cpuPerDelivery>;
  rssMiB: number;
  /** A purging system's expired rows: written before the backlog, and purged by its last arrival. */
  expired?: { written: number; purged: number };
}

/**
 * Expired attempts (each with its event) written per backlog event for a purging system: more than
 * its dispatcher purges in the drain, so that the purge runs from the backlog's commit to its last
 * arrival.
 */
const EXPIRED_PER_EVENT = 20;

/** The receiver expects `jobs` (by versionId). */
const expect = (setting: RoundSetting, jobs: PeerJob[]) =>
  setting.receiver.expect(jobs.map((job) => job.payload.versionId));
/** A new run: the receiver forgets the arrivals so far. */
const newRun = (setting: RoundSetting) => setting.receiver.reset();

/**
 * A backlog of `size` events drained by `system`'s worker processes. The database is vacuumed
 * first (the dead rows of the systems before are not this one's to clean up), the workers started
 * and warmed by `warmupEvents` deliveries, unmeasured, and a CHECKPOINT taken (the pages the systems
 * before dirtied are not this one's to write). Then the backlog becomes available at once (one
 * commit, after an ANALYZE in its transaction; BullMQ: added while its queue is paused, then
 * resumed) while the warm workers idle: the enqueue is timed apart, deliveries/s from the first to
 * the last arrival, CPU from the commit to the last arrival.
 */
export async function drain(
  setting: RoundSetting,
  system: PeerSystem,
  size: number,
  warmupEvents: number,
  { logRow = false } = {},
): Promise<DrainFigures> {
  await newRun(setting);
  await setting.pool.query('VACUUM');
  const conn = await system.connect(setting.round);
  const children = await startWorkers(setting, system, { logRow });
  let rss = 0;
  const sampler = setInterval(() => {
    for (const c of children) rss = Math.max(rss, rssOr0(c.pid));
  }, 200);
  try {
    if (warmupEvents > 0) {
      const warm = setting.jobsFor(warmupEvents);
      await expect(setting, warm);
      await conn.enqueue(warm);
      await arrived(setting.receiver, warmupEvents, 600_000);
    }
    const written = system.purging ? await insertExpired(setting.pool, EXPIRED_PER_EVENT * size) : 0;
    const leftAtCommit = system.purging ? await purgeUnderWay(setting.pool, written) : 0;
    await setting.pool.query('CHECKPOINT');
    await newRun(setting);
    const jobs = setting.jobsFor(size);
    await expect(setting, jobs);
    const t0 = hrNow();
    const { analyzeMs = 0 } = (await conn.enqueue(jobs, { backlog: true })) ?? {};
    const committedAt = hrNow();
    const start = await cpuNow(setting, system, children);
    const got = await arrived(setting.receiver, size, 600_000);
    const end = await cpuNow(setting, system, children);
    for (const c of children) rss = Math.max(rss, rssOr0(c.pid));
    const expired = system.purging
      ? { written, purged: leftAtCommit - (await expiredLeft(setting.pool)) }
      : undefined;
    return {
      ...(expired ? { expired } : {}),
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
    if (system.purging) await dropExpired(setting.pool);
  }
}

/** Commits `count` events one at a time at `rate`/s; returns each one's commit instant. */
async function commitAtRate(
  setting: RoundSetting,
  conn: PeerConnection,
  count: number,
  rate: number,
): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  for (let i = 0; i < count; i += 1) {
    const jobs = setting.jobsFor(1);
    await expect(setting, jobs);
    await conn.enqueue(jobs);
    const [job] = jobs;
    if (job) committed.set(job.payload.versionId, hrNow());
    await new Promise((r) => setTimeout(r, 1000 / rate));
  }
  return committed;
}

/** Commit-to-receipt of events committed one at a time at `rate`/s for `seconds` to one idle worker. */
export async function latency(
  setting: RoundSetting,
  system: PeerSystem,
  rate: number,
  seconds: number,
): Promise<{ p50: number; p99: number; samples: number }> {
  const conn = await system.connect(setting.round);
  await newRun(setting);
  const children = await startWorkers(setting, system, {});
  try {
    // One event delivered first: the worker has started and listens (start-up is not latency).
    const warm = setting.jobsFor(1);
    await expect(setting, warm);
    await conn.enqueue(warm);
    await arrived(setting.receiver, 1, 120_000);
    // Then a second of events at the same rate, unmeasured: what the worker prepares or compiles on
    // its first runs (prepared statements on each pooled connection, optimised code) is start-up too.
    const warming = await commitAtRate(setting, conn, rate, rate);
    await arrived(setting.receiver, 1 + warming.size, 60_000);
    await newRun(setting);
    const total = Math.round(rate * seconds);
    const committed = await commitAtRate(setting, conn, total, rate);
    await arrived(setting.receiver, total, 60_000);
    const got = await setting.receiver.arrivals([...committed.keys()]);
    const instants = [...committed.values()].map((sent, i): [number, number] => [sent, got[i] ?? Number.NaN]);
    if (process.env.LATENCY_SERIES) {
      const offset = Date.now() - hrNow();
      const epoch = (t: number) => +(t + offset).toFixed(3);
      const pairs = instants.map(([sent, at]) => [epoch(sent), epoch(at)]);
      process.stderr.write(`latency series ${JSON.stringify(pairs)}\n`);
    }
    const ms = instants.map(([sent, at]) => at - sent).sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)] ?? Number.NaN;
    return { p50: at(0.5), p99: at(0.99), samples: ms.length };
  } finally {
    await stopWorkers(children);
    await conn.close();
  }
}

/** What a kill -9 in the middle of a stream left: arrivals, losses and duplicates. */
export interface CrashFigures {
  events: number;
  deliveredAtKill: number;
  delivered: number;
  lost: number;
  duplicates: number;
  secondsAfterKill: number;
}

/**
 * `events` committed in batches of 20 while one worker delivers them; a third of the way the
 * worker is killed -9, the supervisor's step for a dead worker runs (graphile-worker's forced
 * unlock; the others' leases run out), and a new worker starts. Every committed event must arrive;
 * duplicates are arrivals beyond the first of an event.
 */
export async function crash(
  setting: RoundSetting,
  system: PeerSystem,
  events: number,
): Promise<CrashFigures> {
  const conn = await system.connect(setting.round);
  await newRun(setting);
  let children = await startWorkers(setting, system, {});
  let killedAt = 0;
  try {
    const producing = (async () => {
      for (let i = 0; i < events; i += 20) {
        const jobs = setting.jobsFor(Math.min(20, events - i));
        await expect(setting, jobs);
        await conn.enqueue(jobs);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await arrived(setting.receiver, Math.floor(events / 3), 120_000);
    const [victim] = children;
    if (victim) {
      victim.stopping = true;
      const exited = once(victim, 'exit');
      victim.kill('SIGKILL');
      await exited;
    }
    killedAt = hrNow();
    const deliveredAtKill = (await setting.receiver.state()).arrived;
    await conn.afterKill();
    children = await startWorkers(setting, system, {});
    await producing;
    // What has not arrived within the budget counts as lost; a worker that dies unasked fails the round.
    const budgetMs = LEASE_SECONDS * 1000 + 120_000;
    await arrived(setting.receiver, events, budgetMs).catch((error: unknown) => {
      if (workerFailure()) throw error;
    });
    const got = await setting.receiver.state();
    return {
      events,
      deliveredAtKill,
      delivered: got.arrived,
      lost: events - got.arrived,
      duplicates: got.total - got.arrived,
      secondsAfterKill: (got.lastAt - killedAt) / 1000,
    };
  } finally {
    await stopWorkers(children);
    await conn.close();
  }
}

/** Every figure of one system in one round. */
export interface SystemRound {
  drains: Record<string, DrainFigures>;
  logged?: DrainFigures;
  latency?: { p50: number; p99: number; samples: number };
  crash?: CrashFigures;
}

/** What a round prints (webhook-peers-round.ts). */
export interface PeerRoundOutput {
  sizes: number[];
  tenants: number;
  order: string[];
  results: Record<string, SystemRound>;
}
