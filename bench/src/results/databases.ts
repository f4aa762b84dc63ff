// The results of the scenarios on databases of their own: 8 (idempotency keys), 9 (read replicas)
// and 11 (conditional requests).
import type { Spread } from './common.js';

/** Scenario 8: one operation with and without a key, in ms. */
export interface IdempotencyLatency {
  samples: number;
  warmUp: number;
  p50: { plain: number; keyed: number };
  p99: { plain: number; keyed: number };
  addedP50: number;
}

/** Scenario 8: the key table after keyed creations. */
export interface KeyTable {
  creations: number;
  seconds: number;
  rate: number;
  retries: number;
  rows: number;
  bytes: number;
  heap: number;
}

/** Scenario 8: what `Idempotency-Key` costs. */
export interface IdempotencyResult {
  loadAtStart?: string;
  latency: Record<string, IdempotencyLatency>;
  roundTrip?: number;
  defaultTtl: KeyTable;
  shortTtl: KeyTable;
  shortTtlS: number;
  concurrency: number;
  note?: string;
}

/** Scenario 9: one load on one configuration. */
export interface ReplicaRun {
  rps: number;
  p50: number;
  p99: number;
  reads: number;
  failures: number;
  apiCpuUs: number;
  primaryCpuUs: number;
  standbyCpuUs: number;
  replicaShare: number;
  counts: Record<string, number>;
}

/** Scenario 9: one configuration over the rounds. */
export interface ReplicaConfig {
  rps: Spread;
  p50: Spread;
  p99: Spread;
  apiCpuUs: Spread;
  primaryCpuUs: Spread;
  standbyCpuUs: Spread;
  replicaShare: Spread;
  reads: number;
  failures: number;
  counts: Record<string, number>;
}

/** Scenario 9's configurations: the primary alone, and with the standby. */
export type ReplicaConfigName = 'primary' | 'replica';

/** Scenario 9: reads leaving the primary with a standby configured. */
export interface ReplicaReadsResult extends Record<ReplicaConfigName, ReplicaConfig> {
  loadAtStart: string;
  loadSeconds: number;
  rounds: number;
  connections: number;
  pages: number;
  runs: Record<ReplicaConfigName, ReplicaRun>[];
  apiCpuRatio: Spread;
}

/** Scenario 11: one read whole and answered 304, in ms. */
export interface ConditionalLatency {
  bytes: number;
  samples: number;
  p50: { whole: number; notModified: number };
  p99: { whole: number; notModified: number };
}

/** Scenario 11: what conditional requests cost and buy. */
export interface ConditionalResult {
  loadAtStart: string;
  connections: number;
  loadSeconds: number;
  latency: { getPage: ConditionalLatency; getAudienceMessages: ConditionalLatency };
  throughput: { whole: number; notModified: number }[];
  hash: { pageMicros: number; historyMicros: number; maxHistoryMicros: number };
  note?: string;
}
