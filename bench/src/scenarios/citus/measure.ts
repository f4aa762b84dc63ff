// How scenario 10 measures a load on both sides: the load's own figures, the CPU per request of
// every process of each node, the transactions each node committed per request, and on the cluster
// the coordinator's own counters.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchContext } from '../../context.js';
import type { LoadRun } from '../../lib/load.js';
import type { CitusRequestSide, CitusTarget } from '../../results.js';
import { settleMs, TARGETS } from './plan.js';
import type { Target } from './targets.js';

/** One side of one request load: its figures, and the load's own (`run`). */
export type MeasuredSide<R extends LoadRun = LoadRun> = Omit<CitusRequestSide, 'run'> & { run: R };

/** Transactions committed or rolled back so far in the database, on every node. */
async function transactions(target: Target): Promise<number[]> {
  const counts = await Promise.all(
    target.stats.map(
      async (client) =>
        (
          await client.query<{ n: string }>(
            'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
          )
        ).rows[0]?.n,
    ),
  );
  return counts.map(Number);
}

/** The coordinator's Citus counters so far (`citus_stat_counters`, on with `citus.enable_stat_counters`). */
export async function citusCounters(target: Target): Promise<Record<string, number>> {
  const client = target.stats[0];
  if (!client) throw new Error('no connection to the coordinator');
  const { rows } = await client.query<Record<string, string>>(
    `SELECT query_execution_single_shard AS "singleShard", query_execution_multi_shard AS "multiShard",
       connection_establishment_succeeded AS "connectionsOpened"
     FROM citus_stat_counters WHERE name = current_database()`,
  );
  return Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
}

/**
 * Runs `load` on each side in `order` and answers each side's figures: the load's own, the CPU per
 * request of every process of each node, the transactions each node committed per request (read
 * after {@link settleMs}, the readings' own subtracted), and on the cluster the coordinator's
 * single- and multi-shard executions and worker connections opened over the load. The coordinator's
 * statements per request are those executions: its own pg_stat_database lagged by more than the
 * wait (its backends' counts of one load showed up in the next load's).
 */
export async function measure<R extends LoadRun>(
  ctx: BenchContext,
  targets: Record<CitusTarget, Target>,
  order: CitusTarget[],
  load: (target: Target) => Promise<R>,
): Promise<Record<CitusTarget, MeasuredSide<R>>> {
  const xacts = Object.fromEntries(
    await Promise.all(TARGETS.map(async (n) => [n, await transactions(targets[n])] as const)),
  );
  const sides: Partial<Record<CitusTarget, MeasuredSide<R>>> = {};
  for (const name of order) {
    const target = targets[name];
    const counters = name === 'cluster' ? await citusCounters(target) : undefined;
    const cpu = target.nodes.map((node) => node.cpuMicros());
    const run = await load(target);
    const cpuAfter = target.nodes.map((node) => node.cpuMicros());
    const side: MeasuredSide<R> = {
      rps: run.rps,
      p50: run.p50,
      p99: run.p99,
      total: run.total,
      failures: run.non2xx + run.errors,
      nodes: Object.fromEntries(
        target.nodes.map((node, i) => [
          node.name,
          { cpuUs: ((cpuAfter[i] ?? 0) - (cpu[i] ?? 0)) / run.total },
        ]),
      ),
      run,
    };
    if (counters) {
      const after = await citusCounters(target);
      const citus = Object.fromEntries(
        Object.keys(after).map((k) => [k, (after[k] ?? 0) - (counters[k] ?? 0)]),
      );
      side.citus = citus;
      const coordinator = side.nodes.coordinator;
      if (coordinator)
        coordinator.statements = ((citus.singleShard ?? 0) + (citus.multiShard ?? 0)) / run.total;
    }
    sides[name] = side;
  }
  await sleep(settleMs(ctx));
  for (const name of TARGETS) {
    const after = await transactions(targets[name]);
    const side = sides[name];
    targets[name].nodes.forEach((node, i) => {
      if (node.name === 'coordinator') return;
      const figures = side?.nodes[node.name];
      if (side && figures)
        figures.transactions = ((after[i] ?? 0) - (xacts[name]?.[i] ?? 0) - 1) / side.total;
    });
  }
  // The sides as measured, in the round's order (the results keep it).
  const complete = (s: typeof sides): s is Record<CitusTarget, MeasuredSide<R>> =>
    TARGETS.every((name) => s[name] !== undefined);
  if (!complete(sides)) throw new Error('a side was not measured');
  return sides;
}
