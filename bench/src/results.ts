// The results of a run as docs/benchmarks.json (and bench/results/<mode>.json) hold them: what each
// scenario returns, and what the report reads. Fields a report tests for before reading them are
// optional: older runs, and runs of some scenarios, lack them.

import type { CitusResult } from './results/citus.js';
import type { Machine } from './results/common.js';
import type { ConditionalResult, IdempotencyResult, ReplicaReadsResult } from './results/databases.js';
import type { IsolationResult } from './results/isolation.js';
import type {
  IngestionResult,
  McpResult,
  MemoryResult,
  OverheadResult,
  ScaleResult,
} from './results/requests.js';
import type { WebhooksResult } from './results/webhooks.js';

export type * from './results/citus.js';
export type * from './results/common.js';
export type * from './results/databases.js';
export type * from './results/isolation.js';
export type * from './results/requests.js';
export type * from './results/webhooks.js';

/** A scenario's result as the run stores it: with the seconds the scenario took. */
export type Timed<T> = T & { seconds?: number };

/** Each scenario's result, under its name (`--only`'s names). */
export interface ScenarioResults {
  overhead: OverheadResult;
  scale: ScaleResult;
  ingestion: IngestionResult;
  webhooks: WebhooksResult;
  mcp: McpResult;
  memory: MemoryResult;
  isolation: IsolationResult;
  idempotency: IdempotencyResult;
  replicas: ReplicaReadsResult;
  citus: CitusResult;
  conditional: ConditionalResult;
}

/** A scenario's name. */
export type ScenarioName = keyof ScenarioResults;

/** Each scenario's result as a run stores it, under its name; absent when the run skipped it. */
export type ScenarioEntries = { [K in ScenarioName]?: Timed<ScenarioResults[K]> };

/** The whole results object of a run (docs/benchmarks.json). */
export type BenchResults = ScenarioEntries & {
  quick: boolean;
  smoke: boolean;
  startedAt: string;
  machine: Machine;
  versions: { node24: string; node20: string };
  rssStart?: number;
  seconds: number;
  /** For a report merged from runs of some scenarios: when each was measured again. */
  remeasured?: Record<string, string>;
};
