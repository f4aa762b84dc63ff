// How each system of the webhook peers scenario takes events in, as the round's coordinator drives
// it: its own enqueue (committed before it returns), and what a supervisor does after one of its
// worker processes is killed -9.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Database } from '@customer-api/server';
import type pg from 'pg';
import type { DispatchDeps, Tx } from '../lib/dispatch-setup.js';
import { PEER_QUEUE, PEER_TASK, type PeerJob, peerSettings } from './webhook-peers-settings.js';

/** What a round holds for its systems: databases, Redis, the receiver, the workers under way. */
export interface PeerRound {
  databaseUrl: string;
  redisUrl: string;
  targetUrl: string;
  secret: string;
  tenants: string[];
  database: Database;
  deps: DispatchDeps;
  pool: pg.Pool;
  oursEnv: NodeJS.ProcessEnv;
  jobsFile: string;
  /** The worker processes under way (the undici system sends its jobs to them). */
  workers: ChildProcess[];
}

/** What an enqueue reports: how long the ANALYZE in a backlog's transaction took. */
export type Enqueued = { analyzeMs?: number } | undefined;

/** A system's enqueueing side, open for one step of a round. */
export interface PeerConnection {
  /** Adds `jobs`; a backlog becomes available to the workers all at once. */
  enqueue(jobs: PeerJob[], options?: { backlog?: boolean }): Promise<Enqueued>;
  /** The supervisor's step after a worker was killed -9. */
  afterKill(): Promise<void>;
  close(): Promise<void>;
}

/** `ANALYZE` as a statement of the server's database port (unnamed, no parameters, rows as read). */
const ANALYZE: Parameters<Tx['run']>[0] = {
  name: '',
  text: 'ANALYZE',
  values: () => [],
  row: undefined,
  format: 'values',
};

const inBatches = async <T>(jobs: T[], size: number, fn: (batch: T[]) => Promise<unknown>) => {
  for (let i = 0; i < jobs.length; i += size) await fn(jobs.slice(i, i + size));
};

/** Ours: the server's outbox rows, written as the server writes them. */
export async function oursConnect(round: PeerRound): Promise<PeerConnection> {
  const { recordVersionEvent } = await import('@customer-api/server/internals');
  const record = (tx: Tx, job: PeerJob) => {
    const p = job.payload;
    return recordVersionEvent(tx, round.deps, 'page.version.created', {
      tenantId: job.tenantId,
      pageId: p.pageId,
      audienceId: p.audienceId,
      versionId: p.versionId,
      status: p.status,
      createdAt: new Date(p.createdAt),
    });
  };
  return {
    async enqueue(jobs, { backlog = false } = {}) {
      if (!backlog) {
        await inBatches(jobs, 200, (batch) =>
          round.database.db.transaction(async (tx) => {
            for (const job of batch) await record(tx, job);
          }),
        );
        return undefined;
      }
      let analyzeMs = 0;
      await round.database.db.transaction(async (tx) => {
        for (const job of jobs) await record(tx, job);
        const t0 = performance.now();
        await tx.run(ANALYZE, undefined);
        analyzeMs = performance.now() - t0;
      });
      return { analyzeMs };
    },
    // A dead dispatcher's leases run out on their own (WEBHOOKS_LEASE_MS).
    async afterKill() {},
    async close() {},
  };
}

/**
 * Adds `jobs` with `add(client, batch)` in batches of 200: each batch committed on its own, or, for
 * a backlog, all of them in one transaction that also runs ANALYZE before its commit (it counts the
 * transaction's own rows), so that the planner's statistics describe the backlog the workers drain.
 */
async function addInBatches(
  round: PeerRound,
  jobs: PeerJob[],
  backlog: boolean,
  add: (client: pg.PoolClient, batch: PeerJob[]) => Promise<unknown>,
): Promise<Enqueued> {
  const client = await round.pool.connect();
  try {
    if (!backlog) {
      await inBatches(jobs, 200, (batch) => add(client, batch));
      return {};
    }
    await client.query('BEGIN');
    await inBatches(jobs, 200, (batch) => add(client, batch));
    const t0 = performance.now();
    await client.query('ANALYZE');
    const analyzeMs = performance.now() - t0;
    await client.query('COMMIT');
    return { analyzeMs };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** graphile-worker: its add_jobs, on a client of ours. */
export async function graphileConnect(round: PeerRound): Promise<PeerConnection> {
  const { makeWorkerUtils, Logger } = await import('graphile-worker');
  const utils = await makeWorkerUtils({
    connectionString: round.databaseUrl,
    logger: new Logger(() => () => {}),
  });
  await utils.migrate();
  return {
    // graphile-worker's add_jobs (what utils.addJobs sends), called on a client of ours so that a
    // backlog goes in one transaction, as its documentation says to add jobs within one.
    enqueue(jobs, { backlog = false } = {}) {
      return addInBatches(round, jobs, backlog, (client, batch) =>
        client.query(
          `SELECT FROM graphile_worker.add_jobs(
             array(SELECT json_populate_recordset(null::graphile_worker.job_spec, $1::json)), false)`,
          [JSON.stringify(batch.map((payload) => ({ identifier: PEER_TASK, payload })))],
        ),
      );
    },
    // graphile-worker keeps a dead worker's locks for 4 hours; its documented remedy, run by a
    // supervisor that knows the worker is gone, is forceUnlockWorkers.
    async afterKill() {
      const { rows } = await round.pool.query<{ locked_by: string }>(
        'SELECT DISTINCT locked_by FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL',
      );
      await utils.forceUnlockWorkers(rows.map((r) => r.locked_by));
    },
    close: async () => {
      await utils.release();
    },
  };
}

/** pg-boss: its insert, on a client of ours. */
export async function pgBossConnect(round: PeerRound): Promise<PeerConnection> {
  const { PgBoss } = await import('pg-boss');
  // Only sends: its maintenance and schedules are the worker's (both would otherwise also run here).
  const boss = new PgBoss({
    connectionString: round.databaseUrl,
    ...peerSettings.pgBossInstance,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => {});
  await boss.start();
  if (!(await boss.getQueue(PEER_QUEUE))) await boss.createQueue(PEER_QUEUE, peerSettings.pgBossQueue);
  // `wait` is not in pg-boss's StopOptions type; the stop is the same as before the bench was typed.
  const stopOptions = { graceful: false, wait: true };
  return {
    async enqueue(jobs, { backlog = false } = {}) {
      return addInBatches(round, jobs, backlog, (client, batch) =>
        boss.insert(
          PEER_QUEUE,
          batch.map((data) => ({ data })),
          { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } },
        ),
      );
    },
    // An active job of a dead worker expires after expireInSeconds and is retried.
    async afterKill() {},
    close: () => boss.stop(stopOptions),
  };
}

/** BullMQ: its addBulk, on a Redis of the round's own. */
export async function bullmqConnect(round: PeerRound): Promise<PeerConnection> {
  const { Queue } = await import('bullmq');
  const queue = new Queue(PEER_QUEUE, {
    connection: { host: '127.0.0.1', port: Number(new URL(round.redisUrl).port), maxRetriesPerRequest: null },
  });
  return {
    // A backlog goes in while the queue is paused (workers take nothing from a paused queue), so
    // that all of it becomes available at once, as a commit makes it for the others.
    async enqueue(jobs, { backlog = false } = {}) {
      if (backlog) await queue.pause();
      await inBatches(jobs, 200, (batch) =>
        queue.addBulk(batch.map((data) => ({ name: PEER_TASK, data, opts: peerSettings.bullmqJob }))),
      );
      if (backlog) await queue.resume();
      return undefined;
    },
    // A dead worker's job lock runs out (lockDuration) and the next stalled check moves it back.
    async afterKill() {},
    close: () => queue.close(),
  };
}

/**
 * Plain POSTs: the jobs go to a file, and each sending process under way (`round.workers`) is told
 * over its IPC channel to read it and send them (no queue, nothing committed).
 */
export async function undiciConnect(round: PeerRound): Promise<PeerConnection> {
  return {
    async enqueue(jobs) {
      writeFileSync(round.jobsFile, JSON.stringify(jobs));
      for (const child of round.workers) child.send({ jobsFile: round.jobsFile });
      return undefined;
    },
    async afterKill() {},
    async close() {},
  };
}
