// The systems of the webhook peers scenario, in the report's order: how many worker processes each
// runs, whether a job is durable once enqueued, how its enqueueing side opens
// (webhook-peers-enqueue.ts), and the command of each worker process.
import { SERVER_CLI } from '@customer-api/test-server';
import {
  bullmqConnect,
  graphileConnect,
  oursConnect,
  type PeerConnection,
  type PeerRound,
  pgBossConnect,
  undiciConnect,
} from './webhook-peers-enqueue.js';
import { peerSettings } from './webhook-peers-settings.js';

/** One system of the scenario. */
export interface PeerSystem {
  name: string;
  label: string;
  processes: number;
  durable: boolean;
  connect: (round: PeerRound) => Promise<PeerConnection>;
  /** Ours with an expired pile to purge beside the drain (webhook-peers-round/expired.ts). */
  purging?: boolean;
}

/**
 * The systems, in the report's order. `connect(round)` opens what enqueueing needs and returns
 * `{ enqueue(jobs, { backlog }), afterKill(), close() }` (a backlog becomes available to the
 * workers all at once; `enqueue` resolves with the ms its ANALYZE took, if any); `spawn` says which processes deliver. `round` holds
 * the database URL, the Redis URL, the server's deps (ours) and the subscription target.
 */
export const SYSTEMS: PeerSystem[] = [
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
    name: 'ours-purging',
    label: 'customer-api dispatch, 1 process, purging expired deliveries every second',
    processes: 1,
    durable: true,
    connect: oursConnect,
    purging: true,
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
export function workerCommand(
  system: PeerSystem,
  round: PeerRound,
  { logRow = false } = {},
): { args: string[]; env: NodeJS.ProcessEnv } {
  if (system.name.startsWith('ours')) {
    return {
      args: [SERVER_CLI, 'dispatch'],
      env: {
        ...round.oursEnv,
        ...peerSettings.ours,
        ...(system.purging ? { WEBHOOKS_PURGE_INTERVAL_S: '1' } : {}),
      },
    };
  }
  return {
    args: [new URL('./webhook-peers-job.js', import.meta.url).pathname],
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
