// One worker process of a peer in the webhook peers scenario, run on Node 24 until it is stopped
// (or killed -9). Every peer's job does what one delivery of ours does on the wire: builds the body
// `{timestamp, eventId, payload}`, signs it twice (the spec's `sha256=` HMAC and the Standard
// Webhooks `v1,` HMAC), POSTs it through a keep-alive undici Agent and completes only after a 2xx
// (anything else throws, so the queue retries it). LOG_ROW=1 also writes one delivery-log row in
// PostgreSQL per attempt, what ours keeps for the API. SYSTEM picks the queue:
// graphile-worker | graphile-worker-local-queue | pg-boss | bullmq | undici (plain POSTs of the
// jobs of the file each message on its IPC channel names, nothing read or recorded; it says
// `ready` on that channel once it listens).
import { createHmac, createSecretKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WEBHOOK_HEADERS } from '@customer-api/contract';
import pg from 'pg';
import { Agent } from 'undici';
import { PEER_QUEUE, PEER_TASK, type PeerJob, peerSettings } from './webhook-peers-settings.js';

const SYSTEM = process.env.SYSTEM ?? '';
const CONCURRENCY = 16;
const target = new URL(process.env.TARGET_URL ?? '');
const secret = process.env.SECRET ?? '';
const specKey = createSecretKey(Buffer.from(secret, 'utf8'));
const standardKey = createSecretKey(Buffer.from(secret.slice('whsec_'.length), 'base64'));
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 60_000 });
const logPool =
  process.env.LOG_ROW === '1' ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 }) : null;

/** Sends one job's delivery; resolves after a 2xx (and its log row), throws otherwise. */
async function deliver(job: PeerJob): Promise<void> {
  const body = JSON.stringify({ timestamp: job.createdAt, eventId: job.id, payload: job.payload });
  const ms = Date.now();
  const seconds = Math.floor(ms / 1000);
  const started = performance.now();
  const res = await agent.request({
    origin: target.origin,
    path: target.pathname,
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'bench-peer',
      [WEBHOOK_HEADERS.signature]: `sha256=${createHmac('sha256', specKey).update(body).digest('hex')}`,
      [WEBHOOK_HEADERS.timestamp]: String(ms),
      [WEBHOOK_HEADERS.eventId]: job.id,
      [WEBHOOK_HEADERS.standardId]: job.id,
      [WEBHOOK_HEADERS.standardTimestamp]: String(seconds),
      [WEBHOOK_HEADERS.standardSignature]: `v1,${createHmac('sha256', standardKey).update(`${job.id}.${seconds}.${body}`).digest('base64')}`,
    },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  await res.body.dump();
  if (logPool)
    await logPool.query(
      'INSERT INTO peer_delivery_log (tenant_id, event_id, status, duration_ms) VALUES ($1, $2, $3, $4)',
      [job.tenantId, job.id, res.statusCode, performance.now() - started],
    );
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`receiver answered ${res.statusCode}`);
}

async function graphileWorker(localQueue: boolean): Promise<void> {
  const { Logger, run } = await import('graphile-worker');
  await run({
    connectionString: process.env.DATABASE_URL,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger: new Logger(() => () => {}),
    taskList: { [PEER_TASK]: (payload) => deliver(payload as PeerJob) },
    ...(localQueue ? { preset: { worker: peerSettings.graphileLocalQueue } } : {}),
  });
}

async function pgBoss(): Promise<void> {
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: process.env.DATABASE_URL,
    ...peerSettings.pgBossInstance,
    migrate: false,
  });
  boss.on('error', () => {});
  await boss.start();
  // A batch handler completes its whole batch when it resolves and fails it when it throws.
  await boss.work<PeerJob>(PEER_QUEUE, peerSettings.pgBossWork, (jobs) =>
    Promise.all(jobs.map((j) => deliver(j.data))),
  );
}

async function bullmq(): Promise<void> {
  const { Worker } = await import('bullmq');
  const worker = new Worker<PeerJob>(PEER_QUEUE, (job) => deliver(job.data), {
    connection: {
      host: '127.0.0.1',
      port: Number(new URL(process.env.REDIS_URL ?? '').port),
      maxRetriesPerRequest: null,
    },
    concurrency: CONCURRENCY,
    ...peerSettings.bullmqWorker,
  });
  worker.on('error', () => {});
}

/** Delivers the jobs of each file it is sent, CONCURRENCY at a time, each retried until a 2xx. */
function plainUndici(): void {
  process.on('message', ({ jobsFile }: { jobsFile: string }) =>
    sendAll(JSON.parse(readFileSync(jobsFile, 'utf8')) as PeerJob[]),
  );
  process.send?.('ready');
}
async function sendAll(jobs: PeerJob[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const job = jobs[next];
        next += 1;
        if (!job) break;
        for (;;) {
          try {
            await deliver(job);
            break;
          } catch {}
        }
      }
    }),
  );
}

const systems: Record<string, () => Promise<void> | void> = {
  'graphile-worker': () => graphileWorker(false),
  'graphile-worker-local-queue': () => graphileWorker(true),
  'pg-boss': pgBoss,
  bullmq,
  undici: plainUndici,
};
process.once('SIGTERM', () => process.exit(0));
const system = systems[SYSTEM];
if (!system) throw new Error(`unknown SYSTEM ${SYSTEM}`);
await system();
// Keeps the process (and its workers) alive until the coordinator stops it.
setInterval(() => {}, 1 << 30);
