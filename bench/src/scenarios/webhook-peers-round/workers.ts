// The worker processes of a webhook peers round: started for each step of a system, one that exits
// unasked failing the wait under way, and the CPU and memory they, the database and the receiver use.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { stopProcess } from '@customer-api/test-server';
import type pg from 'pg';
import { cpuMicros, rssMiB } from '../../lib/proc.js';
import type { Receiver, ReceiverState } from '../../lib/webhook-receiver.js';
import type { PeerConnection, PeerRound } from '../webhook-peers-enqueue.js';
import type { PeerJob } from '../webhook-peers-settings.js';
import { type PeerSystem, workerCommand } from '../webhook-peers-systems.js';

/** A worker process, marked once the round stops (or kills) it. */
export type Worker = ChildProcess & { stopping?: boolean };

/** What the steps of a round share: the receiver, the database, Redis, the round's systems' setting. */
export interface RoundSetting {
  receiver: Receiver;
  pool: pg.Pool;
  redis: { pid: number | undefined };
  round: PeerRound;
  /** `count` new jobs over the round's tenants in turn. */
  jobsFor(count: number): PeerJob[];
}

/** A step's open connection to a system's enqueueing side (see {@link PeerConnection}). */
export type { PeerConnection };

// A worker process that exits unasked fails the wait under way ({@link arrived}).
let failure = '';
const onFailure = new Set<() => void>();

/** Why a worker process of the current step exited unasked ('' while none has). */
export const workerFailure = (): string => failure;

/** Resolves once `count` distinct expected events of the current run have arrived; rejects after `ms`. */
export async function arrived(receiver: Receiver, count: number, ms: number): Promise<ReceiverState> {
  const wait = receiver.wait(count);
  let timer: NodeJS.Timeout | undefined;
  let fail: (() => void) | undefined;
  try {
    return await Promise.race([
      wait.done,
      new Promise<never>((_, reject) => {
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
    if (fail) onFailure.delete(fail);
    await receiver.cancel(wait.id);
  }
}

/** Worker processes of `system`, started; one that exits unasked fails the wait under way ({@link arrived}). */
export async function startWorkers(
  setting: RoundSetting,
  system: PeerSystem,
  options: { logRow?: boolean },
): Promise<Worker[]> {
  const { args, env } = workerCommand(system, setting.round, options);
  const dir = process.env.BENCH_PEERS_PROFILE;
  const ipc = system.name === 'undici';
  failure = '';
  const children = Array.from({ length: system.processes }, (_, i) => {
    const name = `${system.name}-${Date.now()}-${i}.cpuprofile`;
    const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}`] : [];
    const child: Worker = spawn(process.execPath, [...profile, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit', ...(ipc ? (['ipc'] as const) : [])],
    });
    child.once('exit', (code, signal) => {
      if (child.stopping) return;
      failure = `a ${system.name} worker exited unasked (${code ?? signal})`;
      for (const fail of onFailure) fail();
    });
    return child;
  });
  if (ipc) await Promise.all(children.map((c) => once(c, 'message')));
  setting.round.workers = children;
  return children;
}

/** Stops the worker processes (SIGTERM, then SIGKILL after 10 s). */
export const stopWorkers = (children: Worker[]): Promise<unknown> =>
  Promise.all(
    children.map((c) => {
      c.stopping = true;
      return stopProcess(c, 10_000);
    }),
  );

const cpuOr0 = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
};

/** The RSS of a process in MiB; 0 once it is gone. */
export function rssOr0(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return rssMiB(pid);
  } catch {
    return 0;
  }
}

/** CPU µs so far of the workers, each database process, Redis and the receiver. */
export interface CpuReading {
  pg: Map<number, number>;
  redis: number;
  workers: number;
  receiver: number;
}

/**
 * CPU µs so far of the workers, the database (this database's backends and the server's own
 * processes, not another database's autovacuum; Redis for BullMQ) and the receiver.
 */
export async function cpuNow(
  setting: RoundSetting,
  system: PeerSystem,
  children: Worker[],
): Promise<CpuReading> {
  const { rows } = await setting.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() OR (datname IS NULL AND backend_type <> 'client backend')`,
  );
  const pids = rows.map((r) => r.pid);
  return {
    pg: new Map(pids.map((pid) => [pid, cpuOr0(pid)])),
    redis: system.name === 'bullmq' ? cpuOr0(setting.redis.pid) : 0,
    workers: children.reduce((sum, c) => sum + cpuOr0(c.pid), 0),
    receiver: cpuOr0(setting.receiver.pid),
  };
}

/** CPU µs per delivery of each side between two readings, over `n` deliveries. */
export function cpuPerDelivery(start: CpuReading, end: CpuReading, n: number) {
  let pg = 0;
  for (const [pid, micros] of end.pg) pg += micros - (start.pg.get(pid) ?? 0);
  return {
    workers: (end.workers - start.workers) / n,
    database: (pg + end.redis - start.redis) / n,
    pg: pg / n,
    receiver: (end.receiver - start.receiver) / n,
  };
}
