// The systems of the webhook peers scenario, as the round coordinator drives them: how each takes
// events in (its own enqueue, committed before it returns), how its worker processes start, and
// what a supervisor does after one of them is killed -9. The settings every peer runs with are
// here too, so that the worker processes and the report say the same thing.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { SERVER_CLI } from '@customer-api/test-server';

/** graphile-worker's task and pg-boss's and BullMQ's queue name. */
export const PEER_TASK = 'deliver';
export const PEER_QUEUE = 'deliveries';
/**
 * How long a dead worker's jobs stay taken before another worker may run them (every system alike):
 * 5 s, or BENCH_PEERS_LEASE_SECONDS (a smoke run's shorter wait after its kill -9).
 */
export const LEASE_SECONDS = Number(process.env.BENCH_PEERS_LEASE_SECONDS) || 5;

/** Each peer's settings beyond its defaults (the report prints them beside its row). */
export const peerSettings = {
  graphileLocalQueue: { localQueue: { size: 17 }, completeJobBatchDelay: 0 },
  pgBossInstance: { useListenNotify: true, superviseIntervalSeconds: 1 },
  pgBossQueue: {
    notify: true,
    expireInSeconds: LEASE_SECONDS,
    retryLimit: 25,
    retryDelay: 1,
    retryBackoff: true,
  },
  pgBossWork: { batchSize: 16, burstWhenBatchFull: true },
  bullmqWorker: { lockDuration: LEASE_SECONDS * 1000, stalledInterval: LEASE_SECONDS * 1000 },
  bullmqJob: {
    attempts: 25,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: 1000,
  },
  ours: {
    WEBHOOKS_TIMEOUT_MS: String(LEASE_SECONDS * 1000 - 1000),
    WEBHOOKS_LEASE_MS: String(LEASE_SECONDS * 1000),
  },
};

/** One event as a peer's job carries it: what ours keeps in its outbox row. */
export function makeJob(tenantId) {
  const createdAt = new Date().toISOString();
  return {
    id: `evt_${randomUUID().replaceAll('-', '')}`,
    tenantId,
    createdAt,
    payload: {
      type: 'page.version.created',
      pageId: `page_${randomUUID().replaceAll('-', '')}`,
      audienceId: `audience_${randomUUID().replaceAll('-', '')}`,
      versionId: `version_${randomUUID().replaceAll('-', '')}`,
      status: 'draft',
      createdAt,
    },
  };
}

const inBatches = async (jobs, size, fn) => {
  for (let i = 0; i < jobs.length; i += size) await fn(jobs.slice(i, i + size));
};

/**
 * The systems, in the report's order. `connect(round)` opens what enqueueing needs and returns
 * `{ enqueue(jobs, { backlog }), afterKill(), close() }` (a backlog becomes available to the
 * workers all at once; `enqueue` resolves with the ms its ANALYZE took, if any); `spawn` says which processes deliver. `round` holds
 * the database URL, the Redis URL, the server's deps (ours) and the subscription target.
 */
export const SYSTEMS = [
  {
    name: 'ours',
    label: 'customer-api dispatch, 1 process',
    processes: 1,
    durable: true,
    connect: oursConnect,
  },
  {
    name: 'ours-2',
    label: 'customer-api dispatch, 2 processes',
    processes: 2,
    durable: true,
    connect: oursConnect,
  },
  {
    name: 'graphile-worker',
    label: 'graphile-worker 0.18, defaults',
    processes: 1,
    durable: true,
    connect: graphileConnect,
  },
  {
    name: 'graphile-worker-local-queue',
    label: 'graphile-worker 0.18, localQueue: { size: 17 }, completeJobBatchDelay: 0',
    processes: 1,
    durable: true,
    connect: graphileConnect,
  },
  {
    name: 'pg-boss',
    label: 'pg-boss 12.38, batchSize: 16, burstWhenBatchFull, notify',
    processes: 1,
    durable: true,
    connect: pgBossConnect,
  },
  {
    name: 'bullmq',
    label: 'BullMQ 6.7 on Redis (AOF, fsync every second)',
    processes: 1,
    durable: false,
    connect: bullmqConnect,
  },
  {
    name: 'undici',
    label: 'plain undici POSTs, nothing recorded',
    processes: 1,
    durable: false,
    connect: undiciConnect,
  },
];

/** The command of one delivering process of `system`. */
export function workerCommand(system, round, { logRow = false } = {}) {
  if (system.name.startsWith('ours')) {
    return {
      args: [SERVER_CLI, 'dispatch'],
      env: { ...round.oursEnv, ...peerSettings.ours },
    };
  }
  return {
    args: [new URL('./webhook-peers-job.mjs', import.meta.url).pathname],
    env: {
      SYSTEM: system.name,
      DATABASE_URL: round.databaseUrl,
      REDIS_URL: round.redisUrl,
      TARGET_URL: round.targetUrl,
      SECRET: round.secret,
      LOG_ROW: logRow ? '1' : '0',
    },
  };
}

async function oursConnect(round) {
  const { recordVersionEvent } = await import('@customer-api/server/internals');
  const record = (tx, job) => {
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
        return;
      }
      let analyzeMs = 0;
      await round.database.db.transaction(async (tx) => {
        for (const job of jobs) await record(tx, job);
        const t0 = performance.now();
        await tx.execute({ text: 'ANALYZE' });
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
async function addInBatches(round, jobs, backlog, add) {
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

async function graphileConnect(round) {
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
      const { rows } = await round.pool.query(
        'SELECT DISTINCT locked_by FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL',
      );
      await utils.forceUnlockWorkers(rows.map((r) => r.locked_by));
    },
    close: () => utils.release(),
  };
}

async function pgBossConnect(round) {
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
  return {
    enqueue(jobs, { backlog = false } = {}) {
      return addInBatches(round, jobs, backlog, (client, batch) =>
        boss.insert(
          PEER_QUEUE,
          batch.map((data) => ({ data })),
          { db: { executeSql: (text, values) => client.query(text, values) } },
        ),
      );
    },
    // An active job of a dead worker expires after expireInSeconds and is retried.
    async afterKill() {},
    close: () => boss.stop({ graceful: false, wait: true }),
  };
}

async function bullmqConnect(round) {
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
async function undiciConnect(round) {
  return {
    async enqueue(jobs) {
      writeFileSync(round.jobsFile, JSON.stringify(jobs));
      for (const child of round.workers) child.send({ jobsFile: round.jobsFile });
    },
    async afterKill() {},
    async close() {},
  };
}
