// The results of scenario 7: tenant B's latency while tenant A attacks.
import type { Counts } from './common.js';

/** B's latency on one endpoint over a phase, in ms. */
export interface IsolationEndpoint {
  p50: number;
  p99: number;
  n: number;
  non2xx: number;
}

/** B's figures over one phase: both endpoints. */
export interface IsolationPhase {
  pages: IsolationEndpoint;
  account: IsolationEndpoint;
}

/** What an attack reported about itself (what A got), beside B's figures during it. */
export interface AttackOutcome {
  attacker?: Counts;
  stored?: number;
  messageKiB?: number;
  bodyKiB?: number;
  subscriptions?: Counts;
  aDeliveriesStarted?: number;
  bDeliveredAfterMs?: number;
}

/** One phase of a build's run: quiet, or one attack with its own quiet baseline. */
export interface IsolationRow extends IsolationPhase, AttackOutcome {
  attack: string;
  quiet?: IsolationPhase;
  interleaved?: boolean;
  rssMiB?: number;
}

/** Every phase against one build of the server. */
export interface IsolationRun {
  label: string;
  seconds: number;
  rows: IsolationRow[];
  rssMaxMiB: number;
}

/** Scenario 7: this build, and another one (BENCH_ISOLATION_BEFORE) when given. */
export interface IsolationResult {
  after: IsolationRun;
  before?: IsolationRun;
}
