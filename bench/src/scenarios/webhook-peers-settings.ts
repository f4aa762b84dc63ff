// The names and settings every system of the webhook peers scenario runs with, so that the worker
// processes, the round's coordinator and the report say the same thing; and one event as a peer's
// job carries it.
import { randomUUID } from 'node:crypto';
import type { PeerSettings } from '../results.js';

/** graphile-worker's task and pg-boss's and BullMQ's queue name. */
export const PEER_TASK = 'deliver';
/** pg-boss's and BullMQ's queue. */
export const PEER_QUEUE = 'deliveries';
/**
 * How long a dead worker's jobs stay taken before another worker may run them (every system alike):
 * 5 s, or BENCH_PEERS_LEASE_SECONDS (a smoke run's shorter wait after its kill -9).
 */
export const LEASE_SECONDS = Number(process.env.BENCH_PEERS_LEASE_SECONDS) || 5;

/** Each peer's settings beyond its defaults (the report prints them beside its row). */
export const peerSettings: PeerSettings = {
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
export interface PeerJob {
  id: string;
  tenantId: string;
  createdAt: string;
  payload: {
    type: 'page.version.created';
    pageId: string;
    audienceId: string;
    versionId: string;
    status: 'draft';
    createdAt: string;
  };
}

/** One event as a peer's job carries it: what ours keeps in its outbox row. */
export function makeJob(tenantId: string): PeerJob {
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
