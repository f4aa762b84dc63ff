// The results of scenario 4: our dispatcher, plain undici POSTs and the job queues.
import type { Spread } from './common.js';

/** CPU µs per delivery of each process of a drain. */
export interface DrainCpu<T> {
  dispatcher: T;
  postgres: T;
  receiver: T;
}

/** One RSS sample of the large backlog's dispatcher. */
export interface BacklogSample {
  t: number;
  delivered: number;
  rss: number;
}

/** Scenario 4's large backlog (first round only). */
export interface BacklogResult {
  events: number;
  tenants: number;
  emitSeconds: number;
  rate: number;
  rssStart: number;
  rssEnd: number | undefined;
  rssMin: number;
  rssMax: number;
  maxDeviation: number;
  samples: BacklogSample[];
}

/** The figures of one system of the peers' rounds at one backlog size. */
export interface PeerSizeFigures {
  deliveriesPerS: Spread;
  oursOver: Spread;
  enqueueSeconds: Spread;
}

/** Every figure of one system of the webhook peers, over the rounds. */
export interface PeerFigures {
  label: string;
  durable: boolean;
  bySize: Record<string, PeerSizeFigures>;
  deliveriesPerS: Spread;
  cpuUsPerDelivery: Spread;
  pgCpuUsPerDelivery: Spread;
  databaseCpuUsPerDelivery: Spread;
  receiverCpuUsPerDelivery: Spread;
  rssMiB: Spread;
  p50Ms?: Spread;
  p99Ms?: Spread;
  withLogRow?: {
    deliveriesPerS: Spread;
    oursOver: Spread;
    cpuUsPerDelivery: Spread;
    pgCpuUsPerDelivery: Spread;
  };
  kill9?: { events: number; duplicates: Spread; lost: Spread };
}

/** The settings each peer runs with beyond its defaults (webhook-peers-systems.ts). */
export interface PeerSettings {
  graphileLocalQueue: { localQueue: { size: number }; completeJobBatchDelay: number };
  pgBossInstance: { useListenNotify: boolean; superviseIntervalSeconds: number };
  pgBossQueue: {
    notify: boolean;
    expireInSeconds: number;
    retryLimit: number;
    retryDelay: number;
    retryBackoff: boolean;
  };
  pgBossWork: { batchSize: number; burstWhenBatchFull: boolean };
  bullmqWorker: { lockDuration: number; stalledInterval: number };
  bullmqJob: {
    attempts: number;
    backoff: { type: 'exponential'; delay: number };
    removeOnComplete: boolean;
    removeOnFail: number;
  };
  ours: { WEBHOOKS_TIMEOUT_MS: string; WEBHOOKS_LEASE_MS: string };
}

/** How the peers' rounds were run. */
export interface PeerPlan {
  sizes: number[];
  rounds: number;
  latencySeconds: number;
  crashEvents: number;
  leaseSeconds?: number;
  warmupEvents: number;
  latencyRate: number;
  tenants: number;
}

/** Ours against the fastest durable peer. */
export interface VsBestPeer extends Spread {
  peer: string;
  events: number;
  twoDispatchers: Spread;
  pgCpu: { ours: number; peer: number };
  latency: { oursP50: number; oursP99: number; bestP50: number; bestP99: number };
  undici: Spread;
}

/**
 * Ours purging an expired pile beside the drain (`ours-purging`) against ours without one, within
 * each round, at the largest backlog.
 */
export interface PurgeBesideDrain {
  events: number;
  /** Deliveries/s purging / not. */
  rate: Spread;
  /** PostgreSQL CPU µs per delivery purging / not. */
  pgCpu: Spread;
  /** Expired rows written before the backlog, and purged by its last arrival. */
  written: number;
  purged: Spread;
}

/** Scenario 4's second part: our dispatcher against the job queues. */
export interface WebhookPeersResult {
  peers: Record<string, PeerFigures>;
  peersOurs: Record<string, PeerFigures>;
  vsBestPeer: VsBestPeer;
  /** Absent from runs measured before the purge was. */
  purge?: PurgeBesideDrain;
  peerRun: PeerPlan & { orders: string[][]; settings: PeerSettings };
}

/** Scenario 4: webhook delivery. */
export interface WebhooksResult extends Partial<WebhookPeersResult> {
  events: number;
  latencyRate: number;
  one: Spread;
  two: Spread;
  undici: Spread;
  ratioOne: Spread;
  ratioTwo: Spread;
  transactionsOne?: Spread;
  transactionsTwo?: Spread;
  cpuOne?: DrainCpu<Spread>;
  cpuTwo?: DrainCpu<Spread>;
  p50: Spread;
  p99: Spread;
  samples: number;
  backlog?: BacklogResult | undefined;
}
