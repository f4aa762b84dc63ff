// The results of the scenarios that load the API's request paths: 1, 2, 3, 5 and 6.
import type { Counts, Spread } from './common.js';

/** Scenario 1: one server's row. */
export interface OverheadRow {
  id: string;
  key: string;
  node: number;
  rps: Spread;
  p50: Spread;
  p99: Spread;
  cpu: Spread;
  failures: number;
}

/** Scenario 1: overhead of GET /v0/pages against bare Fastify, node:http and peers. */
export interface OverheadResult {
  rows: OverheadRow[];
  ratios: Record<string, Spread>;
  bodyBytes: number;
  directPg?: { rps: Spread; errors: number; bytes: number | undefined };
}

/** Scenario 2: one request kind at one table size. */
export interface ScaleRow {
  size: number;
  kind: 'first' | 'deep' | 'byId';
  p50: Spread;
  p99: Spread;
  rps: Spread;
  failures: number;
}

/** Scenario 2: accounts at 10k, 100k and 1M rows. */
export interface ScaleResult {
  sizes: number[];
  rows: ScaleRow[];
  ratios: Record<string, Spread>;
  connections: number;
  loadSeconds: Record<string, number>;
  totals: Record<string, number>;
  deepPages: number;
}

/** What the database held after a run of idempotent creations. */
export interface IngestionCheck {
  entries: number;
  keys: number;
  counted: number;
  accounts: number;
  accounts_counter: number;
  duplicates: number;
  countersExact: boolean;
  withinSent: boolean;
}

/** Scenario 3: POST /v0/account_logs with idempotency keys. */
export interface IngestionResult {
  connections: number;
  domains: number;
  api: Spread;
  pg: Spread;
  pglite: Spread;
  ratio: Spread;
  apiP99: Spread;
  errors: number;
  pgErrors: number;
  pgliteErrors: number;
  duplicates: number;
  countersExact: boolean;
  statuses: Counts[];
  checks: IngestionCheck[];
}

/** One protocol era of scenario 5. */
export interface McpEra {
  p50: Spread;
  p99: Spread;
  overhead50: Spread;
}

/** One heap sample of the MCP HTTP server. */
export interface McpMemorySample {
  calls: number;
  heapMiB: number;
  rssMiB: number;
}

/** Scenario 5: the MCP path against the client. */
export interface McpResult {
  calls: number;
  mcp50: Spread;
  mcp99: Spread;
  client50: Spread;
  client99: Spread;
  ownClient50?: Spread;
  ownClient99?: Spread;
  raw50?: Spread;
  raw99?: Spread;
  clientCost50?: Spread;
  overhead50: Spread;
  eras: Record<string, McpEra>;
  statelessMemory: {
    samples: McpMemorySample[];
    heapGrowthAfterWarmUpMiB: number;
    rssGrowthAfterWarmUpMiB: number;
  };
}

/** Scenario 6: the server's RSS under constant load. */
export interface MemoryResult {
  seconds: number;
  rate: number;
  afterEarlierScenarios: number;
  samples: { t: number; rss: number }[];
  warm: number;
  last: number;
  peak: number;
  growth: number;
  failures: number;
  achievedRps: number;
}
