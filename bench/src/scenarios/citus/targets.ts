// Scenario 10's two sides: each migrated and loaded with the same tenants, its instances vacuumed
// with autovacuum off, the coordinator logging its multi-shard plans, and an API process on each.
import pg from 'pg';
import type { BenchContext } from '../../context.js';
import { type Instance, query } from '../../lib/clusters.js';
import { cli, type TenantKey, tenantKey } from '../../lib/db.js';
import { startOurs } from '../../lib/ours.js';
import type { ServerHandle } from '../../lib/proc.js';
import type { CitusTarget } from '../../results.js';
import { loadScaleTenants } from '../scale-load.js';
import { TARGETS, tenantCount, tenantSizes } from './plan.js';

/** One side: its database, its PostgreSQL instances, its tenants and, once started, its API process. */
export interface Target {
  name: CitusTarget;
  db: { url: string };
  nodes: Instance[];
  /** A connection to each node, for its statistics. */
  stats: pg.Client[];
  /** The read loads' tenants, with their sizes. */
  tenants: (TenantKey & { size: number })[];
  /** A tenant per round for the ingestion load, and one for the warm-up. */
  ingest: TenantKey[];
  server?: ServerHandle;
}

/** The API process of a side (started by {@link startServers}). */
export function serverOf(target: Target): ServerHandle {
  if (!target.server) throw new Error(`the ${target.name}'s API process is not running`);
  return target.server;
}

/** Migrates `db` and loads the tenants (the same ones on either side); keys of the ingestion's tenants. */
export async function prepare(
  ctx: BenchContext,
  name: CitusTarget,
  db: { url: string },
  nodes: Instance[],
): Promise<Target> {
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
  const loaded = sizes.map((size) => {
    const key = tenants[size];
    if (!key) throw new Error(`no tenant of ${size} accounts on the ${name}`);
    return { ...key, size };
  });
  return { name, db, nodes, stats, tenants: loaded, ingest };
}

/**
 * Both sides loaded and vacuumed, autovacuum stops on every instance: its workers' CPU and
 * transactions (on the cluster, over every shard the load wrote) would count as the loads'. Every
 * statement the coordinator plans as multi-shard goes to its log, with the statement; its counters
 * count every execution by the number of shards.
 */
export async function settle(targets: Record<CitusTarget, Target>, coordinatorUrl: string): Promise<void> {
  for (const name of TARGETS) {
    for (const node of targets[name].nodes) {
      await query(node.url, 'VACUUM ANALYZE'); // on each node: its shards, whatever the coordinator propagates
      await query(node.url, 'ALTER SYSTEM SET autovacuum = off');
      await query(node.url, 'SELECT pg_reload_conf()');
    }
  }
  await query(coordinatorUrl, `ALTER SYSTEM SET citus.multi_task_query_log_level = 'log'`);
  await query(coordinatorUrl, 'ALTER SYSTEM SET citus.enable_stat_counters = on');
  await query(coordinatorUrl, 'SELECT pg_reload_conf()');
}

/** Starts an API process on Node 24 on each side's database. */
export async function startServers(ctx: BenchContext, targets: Record<CitusTarget, Target>): Promise<void> {
  for (const name of TARGETS) {
    targets[name].server = await startOurs({
      name: `ours-citus-${name}`,
      bin: ctx.nodes.n24,
      databaseUrl: targets[name].db.url,
    });
  }
}
