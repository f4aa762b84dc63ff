// The parts of docs/benchmarks.json that the notes read. Every section is optional: a run of one
// scenario (`--only=`), a quick or smoke run, or an older JSON may leave any of them out.

/** Median, min and max over a run's rounds. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  n?: number;
}

/** Scenario 1: `GET /v0/pages?limit=20` against bare servers and peers. */
export interface OverheadInput {
  rows?: { id: string; rps?: Spread; cpu?: Spread }[];
  ratios?: Record<string, Spread | undefined>;
  directPg?: { rps?: Spread };
}

/** Scenario 2: keyset pages and reads by id over growing tables. */
export interface ScaleInput {
  connections?: number;
  deepPages?: number;
  ratios?: Record<string, Spread | undefined>;
}

/** Scenario 3: idempotent creations against the same statements issued directly. */
export interface IngestionInput {
  api?: Spread;
  pg?: Spread;
  pglite?: Spread;
  ratio?: Spread;
}

/** CPU per delivery of each process of a drain, in µs. */
export interface DrainCpu {
  dispatcher?: Spread;
  postgres?: Spread;
  receiver?: Spread;
}

/** Scenario 4's large backlog over several tenants. */
export interface BacklogInput {
  events?: number;
  rate?: number;
  rssStart?: number;
  rssMax?: number;
  rssMin?: number;
  rssEnd?: number;
  maxDeviation?: number;
  samples?: { t: number; delivered: number; rss: number }[];
}

/** One system of scenario 4's comparison with job queues. */
export interface PeerInput {
  label?: string;
  durable?: boolean;
  deliveriesPerS?: Spread;
  /** CPU of the sending process (workers, dispatcher or the plain POST loop) per delivery, µs. */
  cpuUsPerDelivery?: Spread;
  pgCpuUsPerDelivery?: Spread;
  receiverCpuUsPerDelivery?: Spread;
  bySize?: Record<string, { deliveriesPerS?: Spread; oursOver?: Spread } | undefined>;
  withLogRow?: { deliveriesPerS?: Spread; oursOver?: Spread };
  p50Ms?: Spread;
  p99Ms?: Spread;
}

/** Ours against the fastest durable peer. */
export interface VsBestPeerInput extends Spread {
  peer: string;
  events?: number;
  twoDispatchers?: Spread;
  pgCpu?: { ours: number; peer: number };
  latency?: { oursP50: number; oursP99: number; bestP50: number; bestP99: number };
  undici?: Spread;
}

/** Scenario 4: webhook delivery. */
export interface WebhooksInput {
  events?: number;
  latencyRate?: number;
  one?: Spread;
  undici?: Spread;
  ratioOne?: Spread;
  ratioTwo?: Spread;
  transactionsOne?: Spread;
  cpuOne?: DrainCpu;
  p50?: Spread;
  p99?: Spread;
  backlog?: BacklogInput;
  peers?: Record<string, PeerInput | undefined>;
  peersOurs?: Record<string, PeerInput | undefined>;
  vsBestPeer?: VsBestPeerInput;
  peerRun?: { sizes?: number[]; rounds?: number };
}

/** Scenario 5: MCP over stdio against the client. */
export interface McpInput {
  overhead50?: Spread;
  clientCost50?: Spread;
  eras?: Record<string, { p50?: Spread; overhead50?: Spread } | undefined>;
  statelessMemory?: { heapGrowthAfterWarmUpMiB?: number; rssGrowthAfterWarmUpMiB?: number };
}

/** Scenario 6: the server's RSS under constant load. */
export interface MemoryInput {
  growth?: number;
  seconds?: number;
  rate?: number;
}

/** B's latency to pages and accounts in one phase of scenario 7. */
export interface IsolationLatency {
  pages: { p99: number; non2xx?: number };
  account: { p99: number; non2xx?: number };
}

/** One phase (quiet, or one attack) of scenario 7. */
export interface IsolationRow extends IsolationLatency {
  attack: string;
  quiet?: IsolationLatency;
  interleaved?: boolean;
  bDeliveredAfterMs?: number;
}

/** Scenario 7: one tenant's attacks against another's latency. */
export interface IsolationInput {
  after?: { rows?: IsolationRow[]; rssMaxMiB?: number };
  before?: { rows?: IsolationRow[] };
}

/** One node's figures under one load of scenario 10. */
export interface CitusNode {
  cpuUs?: Spread;
  transactions?: Spread;
  statements?: Spread;
}

/** Scenario 10: the same API on a Citus coordinator and two workers. */
export interface CitusInput {
  skipped?: string;
  loadAtStart?: string;
  listVsSingle?: Spread;
  readVsSingle?: Spread;
  ingestionVsSingle?: Spread;
  webhooksVsSingle?: Spread;
  coordinatorCpuVsSingle?: Record<string, Spread | undefined>;
  clusterCpuVsSingle?: Record<string, Spread | undefined>;
  loads?: Record<
    string,
    | {
        single?: { nodes?: Record<string, CitusNode | undefined> };
        cluster?: { nodes?: Record<string, CitusNode | undefined> };
      }
    | undefined
  >;
  placement?: { tenantsOn?: Record<string, number | undefined> };
  multiShard?: { requestPaths?: number; webhooks?: number };
}

/** One configuration of scenario 9. */
export interface ReplicaSide {
  rps?: Spread;
  apiCpuUs?: Spread;
  primaryCpuUs?: Spread;
  standbyCpuUs?: Spread;
  replicaShare?: Spread;
}

/** Scenario 9: reads on a streaming standby. */
export interface ReplicasInput {
  loadAtStart?: string;
  primary?: ReplicaSide;
  replica?: ReplicaSide;
  apiCpuRatio?: Spread;
}

/** What the notes read of a run's results (docs/benchmarks.json). */
export interface NotesInput {
  startedAt?: string;
  quick?: boolean;
  smoke?: boolean;
  machine?: { cpus?: number; loadAtStart?: string };
  remeasured?: Record<string, string | undefined>;
  overhead?: OverheadInput;
  scale?: ScaleInput;
  ingestion?: IngestionInput;
  webhooks?: WebhooksInput;
  mcp?: McpInput;
  memory?: MemoryInput;
  isolation?: IsolationInput;
  citus?: CitusInput;
  replicas?: ReplicasInput;
}
