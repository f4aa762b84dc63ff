// Scenario 10 (issue 46): the API on a Citus cluster beside one PostgreSQL, in the same run, with
// the same data and the same harness. The cluster is a coordinator and two workers, loopback
// PostgreSQL 15 instances made by deploy/citus/cluster.sh (which builds Citus when it is missing);
// the single server is a plain PostgreSQL 15 instance of the scenario's own with the nodes'
// settings. On each: `migrate` (which distributes every tenant table by tenant on the
// coordinator), six tenants of accounts (a smoke run: two) loaded as scenario 2 loads them,
// `VACUUM ANALYZE` and autovacuum off on every instance, and an API process on Node 24. Then, in
// turn on each (the order swapped every round): the first page of `GET /v0/accounts?limit=20` and
// `GET /v0/accounts/{id}` over the tenants' keys in turn (closed loop, scenario 2's `latency`),
// scenario 3's idempotent creations for a fresh tenant (`viaApi`) and one drain of scenario 4
// (`customer-api dispatch`, webhooks-worker.mjs). Per load: requests/s, the CPU per request of
// every process of each PostgreSQL instance (/proc), the transactions the single server and each
// worker committed per request (pg_stat_database), and the coordinator's distributed statements,
// multi-shard ones and worker connections (citus_stat_counters). At the end, each worker's rows and
// bytes of the distributed tables; and throughout, the statements the coordinator planned as
// multi-shard, from its log (`citus.multi_task_query_log_level = log`). Skipped, saying why, where
// Citus can be neither found nor built (not root, or no build script: a CI runner's checkout).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { citusUnavailableReason, createSinglePostgres, query, startCitusCluster } from '../lib/clusters.mjs';
import { cli, tenantKey } from '../lib/db.mjs';
import { latency } from '../lib/load.mjs';
import { api, startOurs } from '../lib/ours.mjs';
import { runJsonScript, stopProcess } from '../lib/proc.mjs';
import { fmtSpread, spread } from '../lib/stats.mjs';
import { verify, viaApi } from './ingestion.mjs';
import { accountId } from './scale.mjs';
import { loadScaleTenants } from './scale-load.mjs';

const TARGETS = ['single', 'cluster'];
const KINDS = ['list', 'read', 'ingestion', 'webhooks'];
const WORKERS = 2;
/** Tenants of the read loads (a smoke run's: 2, each a CLI process per side). */
const tenantCount = (ctx) => (ctx.smoke ? 2 : 6);
const CONNECTIONS = 8;
const LIST = '/v0/accounts?limit=20';
/**
 * After the loads of a kind, the wait for every backend to report its transactions to
 * pg_stat_database: PostgreSQL 15 flushes an idle backend's pending statistics within 10 s. A smoke
 * run waits less (its counts may fall short: they are not compared with anything).
 */
const settleMs = (ctx) => (ctx.smoke ? 1500 : 11_000);
const WEBHOOKS_WORKER = new URL('./webhooks-worker.mjs', import.meta.url).pathname;
const MULTI_TASK = 'multi-task query about to be executed';

/** Accounts per tenant; the tenants' sizes differ by one, since scenario 2's loader names a tenant by its size. */
const tenantSizes = (ctx) => {
  const base = ctx.smoke ? 300 : ctx.quick ? 2_000 : 20_000;
  return Array.from({ length: tenantCount(ctx) }, (_, i) => base + i);
};

/** One statement's rows on a connection of its own. */
const rowsOf = (url, text, values) => {
  const client = new pg.Client({ connectionString: url });
  return client
    .connect()
    .then(() => client.query(text, values))
    .then((r) => r.rows)
    .finally(() => client.end());
};

/** Migrates `db` and loads the tenants (the same ones on either side); keys of the ingestion's tenants. */
async function prepare(ctx, name, db, nodes) {
  ctx.progress(`citus: migrate and load ${tenantCount(ctx)} tenants on the ${name}`);
  cli(['migrate'], { DATABASE_URL: db.url });
  const sizes = tenantSizes(ctx);
  const { tenants } = await loadScaleTenants(db.url, sizes, ctx.progress);
  // A tenant per round, and one for the warm-up.
  const ingest = Array.from({ length: ctx.reps + 1 }, (_, r) =>
    tenantKey(db.url, `bench-citus-ingest-${r}-${Date.now()}`),
  );
  const stats = await Promise.all(
    nodes.map(async (node) => {
      const client = new pg.Client({ connectionString: node.url });
      await client.connect();
      return client;
    }),
  );
  return { name, db, nodes, stats, tenants: sizes.map((size) => ({ ...tenants[size], size })), ingest };
}

/** Transactions committed or rolled back so far in the database, on every node. */
async function transactions(target) {
  const counts = await Promise.all(
    target.stats.map(
      async (client) =>
        (
          await client.query(
            'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
          )
        ).rows[0].n,
    ),
  );
  return counts.map(Number);
}

/** The coordinator's Citus counters so far (`citus_stat_counters`, on with `citus.enable_stat_counters`). */
async function citusCounters(target) {
  const { rows } = await target.stats[0].query(
    `SELECT query_execution_single_shard AS "singleShard", query_execution_multi_shard AS "multiShard",
       connection_establishment_succeeded AS "connectionsOpened"
     FROM citus_stat_counters WHERE name = current_database()`,
  );
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

/**
 * Runs `load` on each side in `order` and answers each side's figures: the load's own, the CPU per
 * request of every process of each node, the transactions each node committed per request (read
 * after {@link settleMs}, the readings' own subtracted), and on the cluster the coordinator's
 * single- and multi-shard executions and worker connections opened over the load. The coordinator's
 * statements per request are those executions: its own pg_stat_database lagged by more than the
 * wait (its backends' counts of one load showed up in the next load's).
 */
async function measure(ctx, targets, order, load) {
  const xacts = Object.fromEntries(
    await Promise.all(TARGETS.map(async (n) => [n, await transactions(targets[n])])),
  );
  const sides = {};
  for (const name of order) {
    const target = targets[name];
    const counters = name === 'cluster' ? await citusCounters(target) : undefined;
    const cpu = target.nodes.map((node) => node.cpuMicros());
    const run = await load(target);
    const cpuAfter = target.nodes.map((node) => node.cpuMicros());
    const side = {
      rps: run.rps,
      p50: run.p50,
      p99: run.p99,
      total: run.total,
      failures: run.non2xx + run.errors,
      nodes: Object.fromEntries(
        target.nodes.map((node, i) => [node.name, { cpuUs: (cpuAfter[i] - cpu[i]) / run.total }]),
      ),
      run,
    };
    if (counters) {
      const after = await citusCounters(target);
      side.citus = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - counters[k]]));
      side.nodes.coordinator.statements = (side.citus.singleShard + side.citus.multiShard) / run.total;
    }
    sides[name] = side;
  }
  await sleep(settleMs(ctx));
  for (const name of TARGETS) {
    const after = await transactions(targets[name]);
    targets[name].nodes.forEach((node, i) => {
      if (node.name === 'coordinator') return;
      sides[name].nodes[node.name].transactions = (after[i] - xacts[name][i] - 1) / sides[name].total;
    });
  }
  return sides;
}

/** GETs of `kind` (a first page, or an account by id) over every tenant's key in turn. */
function reads(kind, tenants) {
  let n = 0;
  return () => {
    const tenant = tenants[n % tenants.length];
    n += 1;
    const path =
      kind === 'list'
        ? LIST
        : `/v0/accounts/${accountId(tenant.tenantId, 1 + Math.floor(Math.random() * tenant.size))}`;
    return { path, headers: { 'x-api-key': tenant.apiKey } };
  };
}

const readLoad = (target, kind, seconds) =>
  latency({ url: target.server.url, seconds, connections: CONNECTIONS, path: reads(kind, target.tenants) });

/**
 * One round of scenario 4's drain (one dispatcher, `events` events) on `target`'s database, with
 * the CPU per delivery of each of its nodes; `{ error }` when the drain fails.
 */
async function webhooks(target, ctx, events) {
  const postmasters = Object.fromEntries(target.nodes.map((node) => [node.name, node.postmaster]));
  try {
    const out = await runJsonScript(
      ctx.nodes.n24,
      WEBHOOKS_WORKER,
      {
        DATABASE_URL: target.db.url,
        EVENTS: String(events),
        PHASES: 'one',
        POSTMASTERS: JSON.stringify(postmasters),
        // A drain that has not delivered its events within this is failing (they take seconds):
        // its figure is missing, with what the dispatcher logged, and the run goes on.
        DELIVERY_TIMEOUT_MS: String(ctx.smoke ? 30_000 : ctx.quick ? 60_000 : 120_000),
        DISPATCH_LOG_LEVEL: 'warn',
      },
      { timeoutMs: 300_000 },
    );
    return {
      rps: out.one,
      transactions: out.transactionsOne,
      dispatcherCpuUs: out.cpuOne.dispatcher,
      nodes: Object.fromEntries(target.nodes.map((node) => [node.name, { cpuUs: out.cpuOne[node.name] }])),
    };
  } catch (error) {
    const message = error.message.replace(WEBHOOKS_WORKER, 'webhooks-worker.mjs').replace(/\s+/g, ' ');
    return { error: message.trim().slice(0, 1500) };
  }
}

/** The coordinator's log from byte `from` on: multi-shard plans, with the statement each was for. */
function multiShardSince(log, from) {
  const size = statSync(log).size;
  const buffer = Buffer.alloc(Math.max(0, size - from));
  const fd = openSync(log, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  const lines = buffer.toString('utf8').split('\n');
  const statements = {};
  let count = 0;
  lines.forEach((line, i) => {
    if (!line.includes(MULTI_TASK)) return;
    count += 1;
    const statement = lines
      .slice(i + 1, i + 4)
      .map((l) => /STATEMENT:\s+(.*)/.exec(l)?.[1])
      .find(Boolean);
    const text = (statement ?? '(no statement logged)').replace(/\s+/g, ' ').slice(0, 200);
    statements[text] = (statements[text] ?? 0) + 1;
  });
  return { count, statements, end: size };
}

/** Each worker's rows and bytes of the distributed tables, and where each load tenant's rows are. */
async function placement(cluster, tenants) {
  const port = (url) => Number(new URL(url).port);
  const nameOf = Object.fromEntries(cluster.nodes.map((node) => [port(node.url), node.name]));
  const tables = await rowsOf(
    cluster.url,
    `SELECT table_name::text AS name FROM citus_tables WHERE citus_table_type = 'distributed'`,
  );
  const rows = {};
  for (const { name } of tables) {
    const counts = await rowsOf(
      cluster.url,
      `SELECT s.nodeport, r.result FROM run_command_on_shards($1::regclass, 'SELECT count(*) FROM %s') r
       JOIN citus_shards s ON s.shardid = r.shardid`,
      [name],
    );
    for (const c of counts) rows[nameOf[c.nodeport]] = (rows[nameOf[c.nodeport]] ?? 0) + Number(c.result);
  }
  const bytes = Object.fromEntries(
    (
      await rowsOf(
        cluster.url,
        `SELECT nodeport, sum(shard_size)::bigint AS bytes FROM citus_shards
         WHERE citus_table_type = 'distributed' GROUP BY nodeport`,
      )
    ).map((r) => [nameOf[r.nodeport], Number(r.bytes)]),
  );
  const tenantsOn = {};
  for (const tenant of tenants) {
    const [where] = await rowsOf(
      cluster.url,
      `SELECT nodeport FROM citus_shards WHERE shardid = get_shard_id_for_distribution_column('accounts', $1::text)`,
      [tenant.tenantId],
    );
    const node = nameOf[where.nodeport];
    tenantsOn[node] = (tenantsOn[node] ?? 0) + 1;
  }
  return { tables: tables.length, rows, bytes, tenantsOn };
}

/** Runs scenario 10 on a cluster and a single server of its own (root; Citus, or its build script). */
export async function runCitus(ctx) {
  const unavailable = citusUnavailableReason();
  if (unavailable) {
    ctx.progress(`citus: skipped: ${unavailable}`);
    return { skipped: unavailable };
  }
  const loadAtStart = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');
  const seconds = ctx.smoke ? 0.5 : ctx.quick ? 1 : 5;
  // At 50 connections and the cluster's latency, a quick run's 0.6 s would count a few dozen
  // creations against the statements of every one in flight.
  const ingestionSeconds = ctx.smoke ? 1 : Math.max(2, ctx.loadSeconds);
  const events = ctx.smoke ? 200 : ctx.quick ? 500 : 2000;
  ctx.progress(
    `citus: a coordinator and ${WORKERS} workers (deploy/citus/cluster.sh; builds Citus when missing)`,
  );
  const cluster = await startCitusCluster(WORKERS);
  const single = await createSinglePostgres().catch(async (error) => {
    await cluster.destroy();
    throw error;
  });
  const targets = {};
  try {
    targets.single = await prepare(ctx, 'single', single, [single]);
    targets.cluster = await prepare(ctx, 'cluster', cluster, cluster.nodes);
    // Both sides loaded and vacuumed, autovacuum stops on every instance: its workers' CPU and
    // transactions (on the cluster, over every shard the load wrote) would count as the loads'.
    for (const name of TARGETS) {
      for (const node of targets[name].nodes) {
        await query(node.url, 'VACUUM ANALYZE'); // on each node: its shards, whatever the coordinator propagates
        await query(node.url, 'ALTER SYSTEM SET autovacuum = off');
        await query(node.url, 'SELECT pg_reload_conf()');
      }
    }
    // Every statement the coordinator plans as multi-shard goes to its log, with the statement; its
    // counters count every execution by the number of shards.
    await query(cluster.nodes[0].url, `ALTER SYSTEM SET citus.multi_task_query_log_level = 'log'`);
    await query(cluster.nodes[0].url, 'ALTER SYSTEM SET citus.enable_stat_counters = on');
    await query(cluster.nodes[0].url, 'SELECT pg_reload_conf()');
    for (const name of TARGETS) {
      targets[name].server = await startOurs({
        name: `ours-citus-${name}`,
        bin: ctx.nodes.n24,
        databaseUrl: targets[name].db.url,
      });
    }
    // The statements the coordinator planned as multi-shard from the API servers' start on: during
    // the webhook rounds on the cluster (the worker's set-up and events, and the dispatcher: no
    // request path) apart from the rest.
    const planned = { requests: {}, webhooks: {} };
    let logAt = statSync(cluster.log).size;
    const take = (bucket) => {
      const seen = multiShardSince(cluster.log, logAt);
      logAt = seen.end;
      for (const [text, n] of Object.entries(seen.statements))
        planned[bucket][text] = (planned[bucket][text] ?? 0) + n;
    };
    // Warm-up: each pooled connection's first runs of a statement plan it (on the coordinator, and
    // connect to the workers).
    for (const name of TARGETS) {
      const target = targets[name];
      for (const kind of ['list', 'read']) await readLoad(target, kind, ctx.warmupSeconds);
      const warm = target.ingest.at(-1).apiKey;
      await viaApi({ ...ctx, loadSeconds: ctx.warmupSeconds }, target.server, warm, `citus-warm-${name}`);
    }
    await sleep(settleMs(ctx));
    const rounds = [];
    let webhooksError;
    for (let r = 0; r < ctx.reps; r += 1) {
      const round = {};
      const order = r % 2 ? [...TARGETS].reverse() : TARGETS;
      for (const kind of KINDS) {
        take('requests');
        if (kind === 'ingestion') {
          // A key's first use writes api_keys.last_used_at, a reference table on the cluster (a
          // two-phase commit on every node): made before the load, as the read loads' keys were.
          for (const name of TARGETS)
            await api(
              targets[name].server.url,
              targets[name].ingest[r].apiKey,
              'GET',
              '/v0/accounts?limit=1',
            );
          round[kind] = await measure(ctx, targets, order, (target) =>
            viaApi(
              { ...ctx, loadSeconds: ingestionSeconds },
              target.server,
              target.ingest[r].apiKey,
              `citus-${target.name}-${r}`,
            ),
          );
        } else if (kind !== 'webhooks')
          round[kind] = await measure(ctx, targets, order, (target) => readLoad(target, kind, seconds));
        else if (!webhooksError) {
          round[kind] = {};
          for (const name of order) {
            const before = name === 'cluster' ? await citusCounters(targets.cluster) : undefined;
            round[kind][name] = await webhooks(targets[name], ctx, events);
            if (!before) continue;
            take('webhooks');
            round[kind][name].multiShard =
              (await citusCounters(targets.cluster)).multiShard - before.multiShard;
          }
          const failed = TARGETS.find((name) => round[kind][name].error);
          if (failed)
            webhooksError = `on the ${failed === 'cluster' ? 'cluster' : 'single server'}: ${round[kind][failed].error}`;
        }
        const failed = kind === 'webhooks' && webhooksError ? ` failed ${webhooksError.slice(0, 400)}` : '';
        ctx.progress(`citus round ${r + 1}/${ctx.reps}: ${kind}${failed}`);
      }
      rounds.push(round);
    }
    take('requests');
    const checks = {};
    for (const name of TARGETS) {
      const target = targets[name];
      checks[name] = await Promise.all(
        rounds.map((round, r) =>
          verify(target.db.url, target.ingest[r].tenantId, round.ingestion[name].run.keysSent),
        ),
      );
    }
    const where = await placement(cluster, [...targets.cluster.tenants, ...targets.cluster.ingest]);
    return summarise({
      rounds,
      checks,
      where,
      planned,
      webhooksError,
      extra: {
        loadAtStart,
        rounds: ctx.reps,
        workers: WORKERS,
        tenants: tenantCount(ctx),
        accountsPerTenant: tenantSizes(ctx)[0],
        connections: CONNECTIONS,
        readSeconds: seconds,
        ingestionSeconds,
        events,
        settings: single.settings,
      },
    });
  } finally {
    for (const target of Object.values(targets)) {
      if (target.server) await stopProcess(target.server);
      await Promise.all(target.stats.map((client) => client.end().catch(() => {})));
    }
    await single.destroy();
    await cluster.destroy();
  }
}

/** The sum over `values` of `f`. */
const sum = (values, f) => values.reduce((n, v) => n + f(v), 0);

/** One side's spreads of a kind over the rounds `done`: rates, latency, each node's CPU and transactions. */
function sideSummary(done, kind, name) {
  const of = (f) => spread(done.map((round) => f(round[kind][name])));
  const first = done[0][kind][name];
  const side = {
    rps: of((m) => m.rps),
    nodes: Object.fromEntries(
      Object.entries(first.nodes).map(([node, figures]) => [
        node,
        Object.fromEntries(Object.keys(figures).map((k) => [k, of((m) => m.nodes[node][k])])),
      ]),
    ),
  };
  if (kind === 'webhooks') return { ...side, transactions: of((m) => m.transactions) };
  side.p50 = of((m) => m.p50);
  side.p99 = of((m) => m.p99);
  side.failures = sum(done, (round) => round[kind][name].failures);
  if (first.citus) side.connectionsOpenedPerRequest = of((m) => m.citus.connectionsOpened / m.total);
  return side;
}

/** Spreads over the rounds of each load and side, ratios cluster / single within each round, shares. */
function summarise({ rounds, checks, where, planned, webhooksError, extra }) {
  const loads = {};
  const ratios = {};
  const coordinatorCpu = {};
  const clusterCpu = {};
  const workerTransactions = {};
  for (const kind of KINDS) {
    const done = rounds.filter((round) =>
      TARGETS.every((name) => round[kind]?.[name] && !round[kind][name].error),
    );
    if (!done.length) continue;
    loads[kind] = Object.fromEntries(TARGETS.map((name) => [name, sideSummary(done, kind, name)]));
    const ratio = (f) => spread(done.map((round) => f(round[kind].cluster, round[kind].single)));
    ratios[kind] = ratio((c, s) => c.rps / s.rps);
    coordinatorCpu[kind] = ratio((c, s) => c.nodes.coordinator.cpuUs / s.nodes.single.cpuUs);
    clusterCpu[kind] = ratio(
      (c, s) => sum(Object.values(c.nodes), (node) => node.cpuUs) / s.nodes.single.cpuUs,
    );
    if (kind === 'webhooks') continue;
    const workers = Object.keys(done[0][kind].cluster.nodes).filter((node) => node !== 'coordinator');
    workerTransactions[kind] = Object.fromEntries(
      workers.map((node) => [
        node,
        spread(
          done.map((round) => {
            const nodes = round[kind].cluster.nodes;
            return nodes[node].transactions / sum(workers, (w) => nodes[w].transactions);
          }),
        ),
      ]),
    );
  }
  const multiShard = (kind) => sum(rounds, (round) => round[kind]?.cluster?.citus?.multiShard ?? 0);
  const totalRows = sum(Object.values(where.rows), (n) => n);
  const ingestionChecks = Object.fromEntries(
    TARGETS.map((name) => [
      name,
      {
        duplicates: sum(checks[name], (c) => c.duplicates),
        countersExact: checks[name].every((c) => c.countersExact && c.withinSent),
      },
    ]),
  );
  return {
    ...extra,
    listVsSingle: ratios.list,
    readVsSingle: ratios.read,
    ingestionVsSingle: ratios.ingestion,
    webhooksVsSingle: ratios.webhooks,
    webhooksError,
    coordinatorCpuVsSingle: coordinatorCpu,
    clusterCpuVsSingle: clusterCpu,
    loads,
    workerShare: {
      rows: Object.fromEntries(Object.entries(where.rows).map(([node, n]) => [node, n / totalRows])),
      transactions: workerTransactions,
    },
    placement: { ...where, totalRows },
    multiShard: {
      requestPaths: multiShard('list') + multiShard('read') + multiShard('ingestion'),
      list: multiShard('list'),
      read: multiShard('read'),
      ingestion: multiShard('ingestion'),
      webhooks: sum(rounds, (round) => round.webhooks?.cluster?.multiShard ?? 0),
      planned: planned.requests,
      plannedWebhooks: planned.webhooks,
    },
    ingestionChecks,
    runs: rounds.map((round) =>
      Object.fromEntries(
        Object.entries(round).map(([kind, sides]) => [
          kind,
          Object.fromEntries(Object.entries(sides).map(([name, m]) => [name, { ...m, run: undefined }])),
        ]),
      ),
    ),
  };
}

const f0 = (s) => fmtSpread(s, 0);
const f2 = (s) => fmtSpread(s, 2);
const pct = (x) => `${(x * 100).toFixed(0)} %`;
const verdict = (ok) => (ok ? '**met**' : '**missed**');
const LOAD_NAMES = {
  list: `\`GET ${LIST}\` (first page)`,
  read: '`GET /v0/accounts/{id}`',
  ingestion: '`POST /v0/account_logs` (idempotent)',
  webhooks: 'webhook deliveries, 1 dispatcher',
};
const TARGETS_OF = { list: 0.7, read: 0.7, ingestion: 0.6, webhooks: 0.7 };

/** `text` × n for each statement of `planned`, or `none`. */
const plannedList = (planned) =>
  Object.entries(planned)
    .map(([text, n]) => `\`${text}\` × ${n}`)
    .join('; ') || 'none';

/** The report's section of scenario 10 (`notes`: the prose beside each figure). */
export function renderCitus(r, table, notes) {
  const heading = '## 10. Citus: the same API on a coordinator and two workers';
  if (r.skipped) return [heading, '', `Not measured in this run: ${r.skipped}.`].join('\n');
  const workers = Object.keys(r.placement.rows).sort();
  const clusterNodes = ['coordinator', ...workers];
  const rates = (kind) => {
    const load = r.loads[kind];
    if (!load) return [LOAD_NAMES[kind], 'n/a', 'n/a', 'n/a', '', '', '', ...clusterNodes.map(() => '')];
    const p50 = (side) => (load[side].p50 ? f2(load[side].p50) : '');
    return [
      LOAD_NAMES[kind],
      f0(load.single.rps),
      f0(load.cluster.rps),
      f2(r[`${kind}VsSingle`]),
      `${p50('single')} / ${p50('cluster')}`,
      f0(load.single.nodes.single.cpuUs),
      ...clusterNodes.map((node) => f0(load.cluster.nodes[node].cpuUs)),
      f2(r.coordinatorCpuVsSingle[kind]),
    ];
  };
  const statements = (kind) => {
    const load = r.loads[kind];
    if (!load) return [LOAD_NAMES[kind], 'n/a'];
    return [
      LOAD_NAMES[kind],
      f2(load.single.nodes.single.transactions),
      f2(load.cluster.nodes.coordinator.statements),
      ...workers.map((node) => f2(load.cluster.nodes[node].transactions)),
      r.multiShard[kind],
      f2(load.cluster.connectionsOpenedPerRequest),
    ];
  };
  const requestKinds = KINDS.filter((kind) => kind !== 'webhooks');
  const shares = (kind) =>
    r.workerShare.transactions[kind]
      ? `${kind} ${workers.map((w) => pct(r.workerShare.transactions[kind][w].median)).join(' / ')}`
      : undefined;
  const targets = KINDS.map((kind) => {
    const ratio = r[`${kind}VsSingle`];
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
