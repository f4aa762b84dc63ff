// Notes of scenario 10: the same API on a Citus coordinator and two workers.
import { finite, HISTORY, has, measuredAt, NOT_MEASURED, num, paragraphs, ratio } from './format.js';
import type { CitusInput, NotesInput, Spread } from './input.js';

/** Cluster / single targets of each load, as scenario 10 states them. */
const TARGETS = { list: 0.7, read: 0.7, ingestion: 0.6, webhooks: 0.7 } as const;
type Kind = keyof typeof TARGETS;

/** The cluster / single ratio of a load. */
function vsSingle(c: CitusInput, kind: Kind): Spread | undefined {
  return {
    list: c.listVsSingle,
    read: c.readVsSingle,
    ingestion: c.ingestionVsSingle,
    webhooks: c.webhooksVsSingle,
  }[kind];
}

/** The coordinator hop and this run's CPU ratios. */
function hop(c: CitusInput): string {
  const coord = c.coordinatorCpuVsSingle ?? {};
  const cluster = c.clusterCpuVsSingle ?? {};
  const figures =
    has(coord.list) && has(coord.read)
      ? ` In this run the coordinator spent ${ratio(coord.list)} × the single server's CPU per page and ${ratio(coord.read)} × per read, and the cluster as a whole ${ratio(cluster.list)} × and ${ratio(cluster.read)} ×.`
      : ` The CPU per request of each node was ${NOT_MEASURED}.`;
  return `**What the coordinator hop costs.** Every statement of these loads is a router statement:
the coordinator runs as many distributed statements per request as the single server runs statements
(two for a page, the keyset page and the counter; one for a read by id), each on the one shard of the
request's tenant, and opens no connection to a worker during the loads (each backend keeps one per
worker). What the cluster adds is the hop, on both sides of it. The coordinator plans the statement
with Citus' planner, deparses it with the shard's name, sends it over its cached connection and copies
the rows back. The worker receives text it has not seen (no prepared statement survives the hop), so
it parses and plans each statement the single server ran from a cached plan (a pgbench comparison of
the two paths is in ${HISTORY}).${figures}`;
}

/** The machine's share: request rates and the tenants' placement. */
function oneMachine(c: CitusInput): string {
  const split = Object.entries(c.placement?.tenantsOn ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, n]) => (finite(n) ? n : 0))
    .join(':');
  const rates =
    has(c.listVsSingle) && has(c.readVsSingle)
      ? `${ratio(c.listVsSingle)} × for pages and ${ratio(c.readVsSingle)} × for reads in this run${c.loadAtStart ? ` (load average ${c.loadAtStart} when the scenario started)` : ''}`
      : `its ratios were ${NOT_MEASURED}`;
  const readCost = c.coordinatorCpuVsSingle?.read;
  return `**On one machine.** The coordinator, both workers, both API processes and the load generator share
the machine's cores, so the cluster's request rate follows its total CPU per request: ${rates}. On
separate hosts the workers' part leaves the coordinator: the statements' own work (index scans, row
writes, WAL) and the rows, in proportion to the tenants each worker holds (a tenant goes to a shard by
a hash of its id${split ? `; this run's tenants split ${split}` : ''}). The coordinator keeps planning, routing and copying
results back, and its CPU per request${has(readCost) && readCost.median > 1 ? ", more than the single server's whole cost for a read," : ''} bounds the cluster's request rate.`;
}

/** Ingestion on the cluster: the transaction through the coordinator and the key cache's write. */
function ingestion(c: CitusInput): string {
  const load = c.loads?.ingestion;
  const statements = load?.cluster?.nodes?.coordinator?.statements;
  const transactions = load?.single?.nodes?.single?.transactions;
  const counts =
    has(statements) && has(transactions)
      ? ` (${num(statements.median, 1)} distributed statements per creation on the coordinator in this run, where the single server commits ${num(transactions.median, 1)} transactions)`
      : '';
  return `**Ingestion.** A creation is a transaction of five to seven statements${counts}. On the
cluster it becomes \`BEGIN\` with \`assign_distributed_transaction_id\` on the tenant's worker, each
statement a round trip through the coordinator, then \`COMMIT\` (one worker: no two-phase commit).
The two requests of a key wait on each other's rows while the first one's transaction is open, now
several round trips longer. A key cache miss (a key's first request, then one every 30 s) writes
\`api_keys.last_used_at\`, and \`api_keys\` is a reference table: that write is a two-phase commit on
every node behind a lock taken on the first worker, and 50 requests arriving with a new key all miss
at once and queue on that lock. The round's key therefore makes one request before the load, as the
read loads' keys do in their warm-up (the runs that measured the burst are in the history): cluster /
single ${ratio(c.ingestionVsSingle)} in this run. It is the one request-path write seen to reach every
node; it costs once per key per 30 s, not per request.`;
}

/** Deliveries on the cluster. */
function webhooks(c: CitusInput): string {
  const multi = c.multiShard?.webhooks;
  const coord = c.coordinatorCpuVsSingle?.webhooks;
  return `**Webhooks.** The dispatcher confines every statement to one tenant on a cluster (per-tenant
claims, fan-outs and success batches). It learns which tenants have attempts due from a multi-shard
read at most once per poll interval: those are the ${finite(multi) ? `${num(multi)} ` : ''}multi-shard statements of the webhook
rounds, which are not a request path. Deliveries: ${ratio(c.webhooksVsSingle)} × the single server's rate${has(coord) ? `, the coordinator spending ${ratio(coord)} × its CPU per delivery` : ''}. The dispatcher's own per-tenant statements add to it: a claim of several tenants costs a statement each, and no claim rides with a batch of successes on a cluster.`;
}

/** What the missed targets point to, computed from the ratios. */
function next(c: CitusInput): string | undefined {
  const kinds = Object.keys(TARGETS) as Kind[];
  const missed = kinds.filter((k) => {
    const r = vsSingle(c, k);
    return has(r) && r.median < TARGETS[k];
  });
  if (!missed.length) return undefined;
  const coord = kinds.map((k) => c.coordinatorCpuVsSingle?.[k]).filter(has);
  const allOver = coord.length === kinds.length && coord.every((s) => s.median > 1);
  return `**What to try.** ${missed.length === kinds.length ? 'Every ratio target was missed' : `Targets missed: ${missed.join(', ')}`} in this run.${allOver ? ' The coordinator alone spent more CPU per request than the single server under every load, so a cluster behind one coordinator would stay below one server even on hosts of its own.' : ''} Since Citus 11 every node holds the metadata and can plan a tenant's statements: spreading the API processes' connections over the workers (or several coordinators) takes the coordinator's share off one host. That is what to try before these targets can be met.`;
}

/** Scenario 10: what the coordinator hop costs and how the figures are counted. */
export function citusNote(results: NotesInput): string {
  const c = results.citus;
  if (!c || c.skipped) return `Scenario 10 was ${NOT_MEASURED}.`;
  return paragraphs(
    `Scenario 10 was ${measuredAt(results, 'citus')}.`,
    hop(c),
    oneMachine(c),
    ingestion(c),
    webhooks(c),
    next(c),
    `**Counting.** The transactions per request of the single server and of each worker come from
\`pg_stat_database\`, read 11 s after each load (PostgreSQL 15 flushes an idle backend's counts
within 10 s), with autovacuum off during the loads: on the cluster it vacuums every shard the loads
wrote, and its transactions and CPU would count as the loads'. The coordinator's own
\`pg_stat_database\` lagged by more than that (one load's transactions showed up in the next load's),
so its statements come from \`citus_stat_counters\` (\`citus.enable_stat_counters\`), which also
counts the multi-shard executions.`,
  );
}
