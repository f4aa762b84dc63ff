// Scenario 9 (the HA issue): reads leaving the primary with a standby configured. Its own primary
// and `pg_basebackup -R` standby (throwaway clusters on free ports), one database, one tenant whose
// pages are written before the measurement and that only reads during it. Two API processes on
// Node 24 with metrics on, one with DATABASE_URL alone and one with DATABASE_REPLICA_URL too, take
// the same read load in turn (`GET /v0/pages/{id}` and `GET /v0/pages?limit=20` alternating), the
// order swapped every round. Per load: reads/s, CPU per read of the API process, of every process
// of the primary and of every process of the standby, and the share of reads `db_reads_total`
// counted on the replica.
import os from 'node:os';
import type { BenchContext } from '../context.js';
import { createReplicatedClusters, query } from '../lib/clusters.js';
import { cli, tenantKey } from '../lib/db.js';
import { latency } from '../lib/load.js';
import { api, startOurs } from '../lib/ours.js';
import { cpuMicros, freePort, type ServerHandle, stopProcess } from '../lib/proc.js';
import { fmtSpread, spread } from '../lib/stats.js';
import type { Table } from '../markdown.js';
import type { ReplicaConfig, ReplicaConfigName, ReplicaReadsResult, ReplicaRun, Spread } from '../results.js';
import { delta, serverCounts, settledCounts } from './replica-reads/metrics.js';

/** A server of the scenario, with its metrics port. */
type MetricsServer = ServerHandle & { metricsUrl: string };
/** Whether a round measured every configuration. */
const complete = (
  round: Partial<Record<ReplicaConfigName, ReplicaRun>>,
): round is Record<ReplicaConfigName, ReplicaRun> => CONFIGS.every((config) => round[config] !== undefined);

/** The clusters the scenario reads from. */
type Clusters = Awaited<ReturnType<typeof createReplicatedClusters>>;

const DATABASE = 'bench_replica';
const PAGES = 30;
const CONNECTIONS = 8;
const LIST = '/v0/pages?limit=20';
const CONFIGS: ReplicaConfigName[] = ['primary', 'replica'];

/** One API process of the scenario, with a metrics port of its own. */
async function startServer(
  ctx: BenchContext,
  name: string,
  env: Record<string, string>,
): Promise<MetricsServer> {
  const metricsPort = await freePort();
  const server = await startOurs({
    name,
    bin: ctx.nodes.n24,
    databaseUrl: env.DATABASE_URL,
    env: { ...env, METRICS_PORT: String(metricsPort) },
  });
  return { ...server, metricsUrl: `http://127.0.0.1:${metricsPort}` };
}

/** The tenant's pages, written through `server` (a server without a standby records no position). */
async function seed(server: ServerHandle, apiKey: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < PAGES; i += 1) {
    const page = await api<{ pageId: string }>(server.url, apiKey, 'POST', '/v0/pages', {
      name: `replica-page-${i}`,
      title: `Benchmark page ${i}: a landing page with a realistic amount of content`,
      pageContext: 'A page for the read-replica benchmark; its JSON is about 1 KB.',
      brandId: 'brand-bench',
      pageType: 'inbound',
    });
    ids.push(page.pageId);
  }
  return ids;
}

/** The paths of the load: a page by id (cycling through `ids`) and the first page of the list, in turn. */
function readPaths(ids: string[]): () => string {
  let n = 0;
  return () => {
    n += 1;
    return n % 2 ? `/v0/pages/${ids[(n >> 1) % ids.length]}` : LIST;
  };
}

/**
 * `connections` clients reading back to back for `seconds`; each waits for its last answer, so
 * that the server answers (and counts) every read it started.
 */
const load = (server: ServerHandle, apiKey: string, ids: string[], seconds: number) =>
  latency({
    url: server.url,
    seconds,
    connections: CONNECTIONS,
    headers: { 'x-api-key': apiKey },
    path: readPaths(ids),
  });

/** One load on `server`, with the CPU each side used and where the server counted the reads. */
async function measure({
  server,
  clusters,
  apiKey,
  ids,
  seconds,
}: {
  server: MetricsServer;
  clusters: Clusters;
  apiKey: string;
  ids: string[];
  seconds: number;
}): Promise<ReplicaRun> {
  const before = {
    api: cpuMicros(server.pid),
    primary: clusters.primary.cpuMicros(),
    standby: clusters.standby.cpuMicros(),
    counts: await serverCounts(server.metricsUrl),
  };
  const run = await load(server, apiKey, ids, seconds);
  const after = await settledCounts(server.metricsUrl);
  const cpu = {
    api: cpuMicros(server.pid) - before.api,
    primary: clusters.primary.cpuMicros() - before.primary,
    standby: clusters.standby.cpuMicros() - before.standby,
  };
  const { reads: counts, answered: reads, failed } = delta(after, before.counts);
  return {
    rps: run.rps,
    p50: run.p50,
    p99: run.p99,
    reads,
    failures: failed,
    apiCpuUs: cpu.api / reads,
    primaryCpuUs: cpu.primary / reads,
    standbyCpuUs: cpu.standby / reads,
    replicaShare: (counts['replica/replayed'] ?? 0) / reads,
    counts,
  };
}

/**
 * Per-configuration spreads over the rounds and the reads counted by target and reason; and the
 * API process's CPU per read with the standby over that without it, within each round.
 */
function summarise(
  runs: Record<ReplicaConfigName, ReplicaRun>[],
): Record<ReplicaConfigName, ReplicaConfig> & { apiCpuRatio: Spread } {
  const apiCpuRatio = spread(runs.map((round) => round.replica.apiCpuUs / round.primary.apiCpuUs));
  const configs = Object.fromEntries(
    CONFIGS.map((config) => {
      const of = (key: Exclude<keyof ReplicaRun, 'counts'>) =>
        spread(runs.map((round) => round[config][key]));
      const counts: Record<string, number> = {};
      for (const round of runs)
        for (const [key, n] of Object.entries(round[config].counts)) counts[key] = (counts[key] ?? 0) + n;
      return [
        config,
        {
          rps: of('rps'),
          p50: of('p50'),
          p99: of('p99'),
          apiCpuUs: of('apiCpuUs'),
          primaryCpuUs: of('primaryCpuUs'),
          standbyCpuUs: of('standbyCpuUs'),
          replicaShare: of('replicaShare'),
          reads: runs.reduce((n, round) => n + round[config].reads, 0),
          failures: runs.reduce((n, round) => n + round[config].failures, 0),
          counts,
        },
      ];
    }),
  );
  return { ...(configs as Record<ReplicaConfigName, ReplicaConfig>), apiCpuRatio };
}

/** Runs scenario 9 on clusters of its own (PostgreSQL server binaries, Node 24). */
export async function runReplicaReads(ctx: BenchContext): Promise<ReplicaReadsResult> {
  const seconds = ctx.smoke ? 1 : ctx.quick ? 2 : ctx.loadSeconds;
  const loadAtStart = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');
  const clusters = await createReplicatedClusters();
  const servers: ServerHandle[] = [];
  try {
    await query(clusters.primary.url, `CREATE DATABASE ${DATABASE}`);
    const primaryUrl = clusters.primary.url.replace(/\/postgres$/, `/${DATABASE}`);
    const standbyUrl = clusters.standby.url.replace(/\/postgres$/, `/${DATABASE}`);
    cli(['migrate'], { DATABASE_URL: primaryUrl });
    const reader = tenantKey(primaryUrl, 'bench-replica-reader');
    const primaryOnly = await startServer(ctx, 'ours-primary-only', { DATABASE_URL: primaryUrl });
    servers.push(primaryOnly);
    const ids = await seed(primaryOnly, reader.apiKey);
    await clusters.standby.caughtUp();
    const withReplica = await startServer(ctx, 'ours-with-replica', {
      DATABASE_URL: primaryUrl,
      DATABASE_REPLICA_URL: standbyUrl,
    });
    servers.push(withReplica);
    const targets = { primary: primaryOnly, replica: withReplica };
    for (const config of CONFIGS) {
      await load(targets[config], reader.apiKey, ids, ctx.warmupSeconds);
    }
    const runs: Record<ReplicaConfigName, ReplicaRun>[] = [];
    for (let r = 0; r < ctx.reps; r += 1) {
      const round: Partial<Record<ReplicaConfigName, ReplicaRun>> = {};
      const order = r % 2 ? [...CONFIGS].reverse() : CONFIGS;
      for (const config of order) {
        round[config] = await measure({
          server: targets[config],
          clusters,
          apiKey: reader.apiKey,
          ids,
          seconds,
        });
        ctx.progress(`replicas round ${r + 1}/${ctx.reps}: ${config}`);
      }
      if (complete(round)) runs.push(round);
    }
    return {
      loadAtStart,
      loadSeconds: seconds,
      rounds: ctx.reps,
      connections: CONNECTIONS,
      pages: PAGES,
      runs,
      ...summarise(runs),
    };
  } finally {
    for (const server of servers) await stopProcess(server);
    await clusters.destroy();
  }
}

const us = (s: Spread) => fmtSpread(s, 0);
const share = (s: Spread) =>
  `${(s.median * 100).toFixed(1)} % (${(s.min * 100).toFixed(1)}–${(s.max * 100).toFixed(1)})`;

/** The report's section of scenario 9 (`notes`: the prose beside it). */
export function renderReplicaReads(r: ReplicaReadsResult, table: Table, notes: string | undefined): string {
  const row = (label: string, c: ReplicaConfig) => [
    label,
    us(c.rps),
    fmtSpread(c.p50, 2),
    fmtSpread(c.p99, 2),
    us(c.primaryCpuUs),
    us(c.standbyCpuUs),
    us(c.apiCpuUs),
    share(c.replicaShare),
    c.failures,
  ];
  const counted = Object.entries(r.replica.counts)
    .map(([key, n]) => `\`${key}\` ${n.toLocaleString('en-US')}`)
    .join(', ');
  return [
    '## 9. Read replicas: reads leave the primary',
    '',
    `A primary and a streaming standby of their own (throwaway PostgreSQL clusters made with \`initdb\` and \`pg_basebackup -R\` on this machine, sharing its cores), one tenant with ${r.pages} pages written before the measurement and only reading during it. Two API processes on Node 24, metrics on, one with \`DATABASE_URL\` alone and one with \`DATABASE_REPLICA_URL\` too, take the same load in turn: \`GET /v0/pages/{id}\` and \`GET /v0/pages?limit=20\` alternating, ${r.connections} connections, ${r.loadSeconds} s per load, ${r.rounds} round${r.rounds === 1 ? '' : 's'}, the order swapped every round. CPU per read: user + system time over the reads answered, of the API process, and of every process of each cluster (backends, WAL sender and receiver, replay, background workers). Replica share: reads \`db_reads_total{target="replica"}\` counted over reads answered. Median (min–max) over the rounds. Load average when the scenario started: ${r.loadAtStart}.`,
    '',
    table(
      [
        'Configuration',
        'reads/s',
        'p50 ms',
        'p99 ms',
        'primary CPU µs/read',
        'standby CPU µs/read',
        'API CPU µs/read',
        'reads on the replica',
        'non-2xx + errors',
      ],
      [row('`DATABASE_URL` only', r.primary), row('with `DATABASE_REPLICA_URL`', r.replica)],
    ),
    '',
    `API CPU per read with the standby over without it, within each round: ${fmtSpread(r.apiCpuRatio, 2)}.`,
    '',
    `Reads the server with the standby counted, by \`target/reason\`, over ${r.replica.reads.toLocaleString('en-US')} reads answered: ${counted || 'none'}.`,
    '',
    notes,
  ].join('\n');
}
