// The report's section of scenario 10.
import { fmtSpread } from '../../lib/stats.js';
import type { Table } from '../../markdown.js';
import { verdict } from '../../markdown.js';
import type { CitusKind, CitusMeasured, CitusResult, Spread } from '../../results.js';
import { KINDS, LIST } from './plan.js';

const f0 = (s: Spread | undefined) => fmtSpread(s, 0);
const f2 = (s: Spread | undefined) => fmtSpread(s, 2);
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const LOAD_NAMES: Record<CitusKind, string> = {
  list: `\`GET ${LIST}\` (first page)`,
  read: '`GET /v0/accounts/{id}`',
  ingestion: '`POST /v0/account_logs` (idempotent)',
  webhooks: 'webhook deliveries, 1 dispatcher',
};
const TARGETS_OF: Record<CitusKind, number> = { list: 0.7, read: 0.7, ingestion: 0.6, webhooks: 0.7 };

/** `text` × n for each statement of `planned`, or `none`. */
const plannedList = (planned: Record<string, number>) =>
  Object.entries(planned)
    .map(([text, n]) => `\`${text}\` × ${n}`)
    .join('; ') || 'none';

/** The report's section of scenario 10 (`notes`: the prose beside each figure). */
export function renderCitus(result: CitusResult, table: Table, notes: string | undefined): string {
  const heading = '## 10. Citus: the same API on a coordinator and two workers';
  if (result.skipped !== undefined)
    return [heading, '', `Not measured in this run: ${result.skipped}.`].join('\n');
  const r: CitusMeasured = result;
  const vsSingle = (kind: CitusKind) => r[`${kind}VsSingle`];
  const workers = Object.keys(r.placement.rows).sort();
  const clusterNodes = ['coordinator', ...workers];
  const rates = (kind: CitusKind) => {
    const load = r.loads[kind];
    if (!load) return [LOAD_NAMES[kind], 'n/a', 'n/a', 'n/a', '', '', '', ...clusterNodes.map(() => '')];
    const p50 = (side: 'single' | 'cluster') => (load[side].p50 ? f2(load[side].p50) : '');
    return [
      LOAD_NAMES[kind],
      f0(load.single.rps),
      f0(load.cluster.rps),
      f2(vsSingle(kind)),
      `${p50('single')} / ${p50('cluster')}`,
      f0(load.single.nodes.single?.cpuUs),
      ...clusterNodes.map((node) => f0(load.cluster.nodes[node]?.cpuUs)),
      f2(r.coordinatorCpuVsSingle[kind]),
    ];
  };
  const statements = (kind: 'list' | 'read' | 'ingestion') => {
    const load = r.loads[kind];
    if (!load) return [LOAD_NAMES[kind], 'n/a'];
    return [
      LOAD_NAMES[kind],
      f2(load.single.nodes.single?.transactions),
      f2(load.cluster.nodes.coordinator?.statements),
      ...workers.map((node) => f2(load.cluster.nodes[node]?.transactions)),
      r.multiShard[kind],
      f2(load.cluster.connectionsOpenedPerRequest),
    ];
  };
  const requestKinds = KINDS.filter((kind): kind is 'list' | 'read' | 'ingestion' => kind !== 'webhooks');
  const shares = (kind: CitusKind) => {
    const share = r.workerShare.transactions[kind];
    return share
      ? `${kind} ${workers.map((w) => pct(share[w]?.median ?? Number.NaN)).join(' / ')}`
      : undefined;
  };
  const targets = KINDS.map((kind) => {
    const ratio = vsSingle(kind);
    const label = `${kind} ≥ ${TARGETS_OF[kind]} ×`;
    if (!ratio) return `${label} — **not measured**`;
    return `${label} — ${verdict(ratio.median >= TARGETS_OF[kind])} (${ratio.median.toFixed(2)})`;
  });
  return [
    heading,
    '',
    `A coordinator and ${r.workers} workers (loopback PostgreSQL 15 instances with Citus 13, made by \`deploy/citus/cluster.sh\`, 12 shards per table) beside one plain PostgreSQL 15 instance made for the scenario with the nodes' settings (${r.settings.map((s) => `\`${s}\``).join(', ')}) and locale, all on this machine's two cores with the API processes and the load generator. On each, \`migrate\` (which distributes every tenant table by \`tenant_id\` on the coordinator) and the same ${r.tenants} tenants of ${r.accountsPerTenant.toLocaleString('en')} accounts (scenario 2's loader), one API process on Node 24 each. The two take each load in turn, the order swapped every round: the first page and reads by id over the ${r.tenants} tenants' keys in turn (${r.connections} connections in a closed loop, ${r.readSeconds} s), scenario 3's idempotent creations for a fresh tenant whose key has made one request before (50 connections, ${r.ingestionSeconds} s), and scenario 4's drain of ${r.events} events by one \`customer-api dispatch\`. CPU: user + system time of every process of each PostgreSQL instance over the requests answered (deliveries, for webhooks). ${r.rounds} round${r.rounds === 1 ? '' : 's'}, median (min–max); ratios within each round. Load average when the scenario started: ${r.loadAtStart}.`,
    '',
    table(
      [
        'Load',
        'single req/s',
        'cluster req/s',
        'cluster / single',
        'p50 ms single / cluster',
        'single CPU µs/req',
        ...clusterNodes.map((node) => `${node} CPU µs/req`),
        'coordinator CPU / single',
      ],
      KINDS.map(rates),
    ),
    '',
    `Per request: the transactions the single server and each worker committed (\`pg_stat_database\`, read once every backend has reported; a worker commits one per statement the coordinator sends it outside a transaction block, one per transaction inside one), and the coordinator's own counts (\`citus_stat_counters\`): the distributed statements it ran, how many of them ran on several shards (in all), and the connections it opened to workers.`,
    '',
    table(
      [
        'Load',
        'single: transactions',
        'coordinator: statements',
        ...workers.map((w) => `${w}: transactions`),
        'multi-shard statements',
        'worker connections opened',
      ],
      requestKinds.map(statements),
    ),
    '',
    `The whole cluster's CPU per request (coordinator and workers) over the single server's: ${KINDS.filter(
      (k) => r.clusterCpuVsSingle[k],
    )
      .map((k) => `${k} ${f2(r.clusterCpuVsSingle[k])}`)
      .join(', ')}.`,
    '',
    `Each worker's share (${workers.join(' / ')}): of the rows of the ${r.placement.tables} distributed tables at the end, ${workers.map((w) => pct(r.workerShare.rows[w] ?? 0)).join(' / ')} of ${r.placement.totalRows.toLocaleString('en')} (${workers.map((w) => `${((r.placement.bytes[w] ?? 0) / 2 ** 20).toFixed(1)} MiB`).join(' / ')} of shards); of the tenants measured, ${workers.map((w) => r.placement.tenantsOn[w] ?? 0).join(' / ')}; of the workers' transactions under each load: ${requestKinds.map(shares).filter(Boolean).join(', ')}.`,
    '',
    `Multi-shard statements on request paths: ${r.multiShard.requestPaths}, counted by the coordinator over the list, read and ingestion loads. Statements its log shows it planned as multi-shard from the API servers' start on, warm-up included, the webhook rounds apart (\`citus.multi_task_query_log_level = log\`; a plan cached on a connection is logged once): ${plannedList(r.multiShard.planned)}. During the webhook rounds on the cluster (the round's tenant and subscription, its events' insertion and the dispatcher: no request path): ${r.multiShard.webhooks} multi-shard statements; planned: ${plannedList(r.multiShard.plannedWebhooks)}.`,
    '',
    `Ingestion checks: duplicates ${r.ingestionChecks.single.duplicates} on the single server and ${r.ingestionChecks.cluster.duplicates} on the cluster; counters exact: ${r.ingestionChecks.single.countersExact ? 'yes' : 'NO'} / ${r.ingestionChecks.cluster.countersExact ? 'yes' : 'NO'}.`,
    ...(r.webhooksError ? ['', `Webhook deliveries not measured: failed ${r.webhooksError}`] : []),
    '',
    `Targets, cluster / single: ${targets.join('; ')}; 0 multi-shard statements on request paths — ${verdict(r.multiShard.requestPaths === 0)}.`,
    '',
    notes,
  ].join('\n');
}
