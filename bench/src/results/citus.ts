// The results of scenario 10: the API on a Citus cluster beside one PostgreSQL.
import type { Spread } from './common.js';

/** The loads of scenario 10. */
export type CitusKind = 'list' | 'read' | 'ingestion' | 'webhooks';
/** The two sides of scenario 10. */
export type CitusTarget = 'single' | 'cluster';

/** One node's figures per request over one load (`cpuUs`; `transactions` or `statements`). */
export interface CitusNodeFigures {
  cpuUs: number;
  transactions?: number;
  statements?: number;
}

/** One side of one request load in one round. */
export interface CitusRequestSide {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  failures: number;
  nodes: Record<string, CitusNodeFigures>;
  citus?: Record<string, number>;
  error?: undefined;
  /** The load's own figures (dropped from `runs`). */
  run?: unknown;
}

/** One side of one webhook drain in one round, or why it failed. */
export interface CitusWebhookSide {
  rps: number;
  transactions: number;
  dispatcherCpuUs: number;
  nodes: Record<string, CitusNodeFigures>;
  multiShard?: number;
  error?: undefined;
}

/** A webhook drain that failed. */
export interface CitusFailedSide {
  error: string;
  multiShard?: number;
}

/** One side of one load over the rounds. */
export interface CitusSideSummary {
  rps: Spread;
  nodes: Record<string, Record<string, Spread>>;
  transactions?: Spread;
  p50?: Spread;
  p99?: Spread;
  failures?: number;
  connectionsOpenedPerRequest?: Spread;
}

/** Scenario 10, measured. */
export interface CitusMeasured extends Partial<Record<`${CitusKind}VsSingle`, Spread>> {
  skipped?: undefined;
  loadAtStart: string;
  rounds: number;
  workers: number;
  tenants: number;
  accountsPerTenant: number;
  connections: number;
  readSeconds: number;
  ingestionSeconds: number;
  events: number;
  settings: string[];
  webhooksError?: string;
  coordinatorCpuVsSingle: Partial<Record<CitusKind, Spread>>;
  clusterCpuVsSingle: Partial<Record<CitusKind, Spread>>;
  loads: Partial<Record<CitusKind, Record<CitusTarget, CitusSideSummary>>>;
  workerShare: {
    rows: Record<string, number>;
    transactions: Partial<Record<CitusKind, Record<string, Spread>>>;
  };
  placement: {
    tables: number;
    rows: Record<string, number>;
    bytes: Record<string, number>;
    tenantsOn: Record<string, number>;
    totalRows: number;
  };
  multiShard: {
    requestPaths: number;
    list: number;
    read: number;
    ingestion: number;
    webhooks: number;
    planned: Record<string, number>;
    plannedWebhooks: Record<string, number>;
  };
  ingestionChecks: Record<CitusTarget, { duplicates: number; countersExact: boolean }>;
  runs: Partial<Record<CitusKind, Partial<Record<CitusTarget, unknown>>>>[];
}

/** Scenario 10: measured, or skipped with the reason. */
export type CitusResult = CitusMeasured | { skipped: string };
