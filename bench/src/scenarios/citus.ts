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
// (`customer-api dispatch`, webhooks-worker.ts). Per load: requests/s, the CPU per request of
// every process of each PostgreSQL instance (/proc), the transactions the single server and each
// worker committed per request (pg_stat_database), and the coordinator's distributed statements,
// multi-shard ones and worker connections (citus_stat_counters). At the end, each worker's rows and
// bytes of the distributed tables; and throughout, the statements the coordinator planned as
// multi-shard, from its log (`citus.multi_task_query_log_level = log`). Skipped, saying why, where
// Citus can be neither found nor built (not root, or no build script: a CI runner's checkout).
import { statSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../context.js';
import { citusUnavailableReason, createSinglePostgres, startCitusCluster } from '../lib/clusters.js';
import { api } from '../lib/ours.js';
import { stopProcess } from '../lib/proc.js';
import type { CitusResult, CitusTarget } from '../results.js';
import { readLoad, webhooks } from './citus/loads.js';
import { citusCounters, measure } from './citus/measure.js';
import { multiShardSince, placement } from './citus/placement.js';
import { CONNECTIONS, KINDS, settleMs, TARGETS, tenantCount, tenantSizes, WORKERS } from './citus/plan.js';
import { type CitusRound, type SummaryInput, summarise } from './citus/summary.js';
import { prepare, serverOf, settle, startServers, type Target } from './citus/targets.js';
import { verify, viaApi } from './ingestion.js';

/** The API key of round `r`'s ingestion tenant on `target`. */
const ingestKey = (target: Target, r: number): string => target.ingest[r]?.apiKey ?? '';

/** The report's section of scenario 10. */
export { renderCitus } from './citus/report.js';

/** Runs scenario 10 on a cluster and a single server of its own (root; Citus, or its build script). */
export async function runCitus(ctx: BenchContext): Promise<CitusResult> {
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
  const prepared: Target[] = [];
  try {
    const onSingle = await prepare(ctx, 'single', single, [single]);
    prepared.push(onSingle);
    const onCluster = await prepare(ctx, 'cluster', cluster, cluster.nodes);
    prepared.push(onCluster);
    const targets: Record<CitusTarget, Target> = { single: onSingle, cluster: onCluster };
    await settle(targets, cluster.url);
    await startServers(ctx, targets);
    // The statements the coordinator planned as multi-shard from the API servers' start on: during
    // the webhook rounds on the cluster (the worker's set-up and events, and the dispatcher: no
    // request path) apart from the rest.
    const planned: SummaryInput['planned'] = { requests: {}, webhooks: {} };
    let logAt = statSync(cluster.log).size;
    const take = (bucket: keyof typeof planned) => {
      const seen = multiShardSince(cluster.log, logAt);
      logAt = seen.end;
      for (const [text, n] of Object.entries(seen.statements))
        planned[bucket][text] = (planned[bucket][text] ?? 0) + n;
    };
    // Warm-up: each pooled connection's first runs of a statement plan it (on the coordinator, and
    // connect to the workers).
    for (const name of TARGETS) {
      const target = targets[name];
      for (const kind of ['list', 'read'] as const) await readLoad(target, kind, ctx.warmupSeconds);
      const warm = target.ingest.at(-1)?.apiKey ?? '';
      await viaApi({ ...ctx, loadSeconds: ctx.warmupSeconds }, serverOf(target), warm, `citus-warm-${name}`);
    }
    await sleep(settleMs(ctx));
    const rounds: CitusRound[] = [];
    let webhooksError: string | undefined;
    for (let r = 0; r < ctx.reps; r += 1) {
      const round: CitusRound = {};
      const order = r % 2 ? [...TARGETS].reverse() : TARGETS;
      for (const kind of KINDS) {
        take('requests');
        if (kind === 'ingestion') {
          // A key's first use writes api_keys.last_used_at, a reference table on the cluster (a
          // two-phase commit on every node): made before the load, as the read loads' keys were.
          for (const name of TARGETS)
            await api(
              serverOf(targets[name]).url,
              ingestKey(targets[name], r),
              'GET',
              '/v0/accounts?limit=1',
            );
          round[kind] = await measure(ctx, targets, order, (target) =>
            viaApi(
              { ...ctx, loadSeconds: ingestionSeconds },
              serverOf(target),
              ingestKey(target, r),
              `citus-${target.name}-${r}`,
            ),
          );
        } else if (kind !== 'webhooks')
          round[kind] = await measure(ctx, targets, order, (target) => readLoad(target, kind, seconds));
        else if (!webhooksError) {
          const sides: NonNullable<CitusRound['webhooks']> = {};
          round[kind] = sides;
          for (const name of order) {
            const before = name === 'cluster' ? await citusCounters(targets.cluster) : undefined;
            const side = await webhooks(targets[name], ctx, events);
            sides[name] = side;
            if (!before) continue;
            take('webhooks');
            side.multiShard =
              ((await citusCounters(targets.cluster)).multiShard ?? 0) - (before.multiShard ?? 0);
          }
          const failed = TARGETS.find((name) => sides[name]?.error);
          if (failed)
            webhooksError = `on the ${failed === 'cluster' ? 'cluster' : 'single server'}: ${sides[failed]?.error}`;
        }
        const failed = kind === 'webhooks' && webhooksError ? ` failed ${webhooksError.slice(0, 400)}` : '';
        ctx.progress(`citus round ${r + 1}/${ctx.reps}: ${kind}${failed}`);
      }
      rounds.push(round);
    }
    take('requests');
    const checksOf = (target: Target) =>
      Promise.all(
        rounds.map((round, r) =>
          verify(
            target.db.url,
            target.ingest[r]?.tenantId ?? '',
            round.ingestion?.[target.name].run.keysSent ?? 0,
          ),
        ),
      );
    const checks = { single: await checksOf(targets.single), cluster: await checksOf(targets.cluster) };
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
        accountsPerTenant: tenantSizes(ctx)[0] ?? 0,
        connections: CONNECTIONS,
        readSeconds: seconds,
        ingestionSeconds,
        events,
        settings: single.settings,
      },
    });
  } finally {
    for (const target of prepared) {
      if (target.server) await stopProcess(target.server);
      await Promise.all(target.stats.map((client) => client.end().catch(() => {})));
    }
    await single.destroy();
    await cluster.destroy();
  }
}
