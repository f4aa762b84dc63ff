import type pg from 'pg';
import type { Handle } from './port.js';
import { rowOf, sql, statement } from './sql.js';

/** The column every distributed table is sharded by: a tenant's rows of every table sit on one node. */
export const DISTRIBUTION_COLUMN = 'tenant_id';

/**
 * Where a table lives on a Citus cluster: `distributed` (sharded by `tenant_id`, every such table
 * in one co-location group), `reference` (copied to every node, joinable with any shard) or `local`
 * (on the coordinator only, never joined with distributed tables).
 */
export type Placement = 'distributed' | 'reference' | 'local';

/**
 * The tables that are not distributed, and why. Every other table of `public` with a `tenant_id`
 * column is distributed, so a migration that adds a tenant table needs no change here; a new table
 * without `tenant_id` must be listed, or `migrate` refuses to run on a cluster.
 *
 * - `tenants`, `api_keys` (looked up by key hash before the tenant is known) and `server_settings`:
 *   small, read by every request or process; copied to every node.
 * - `rate_limits`: the rate limiter's counters, keyed by API key and window, never joined.
 * - drizzle's migration journal: written only by `migrate`, on the coordinator.
 */
export const NOT_DISTRIBUTED: Readonly<Record<string, Exclude<Placement, 'distributed'>>> = {
  tenants: 'reference',
  api_keys: 'reference',
  server_settings: 'reference',
  rate_limits: 'local',
  'drizzle.__drizzle_migrations': 'local',
};

/** The placement of `table` (`schema.table` outside `public`) with or without a `tenant_id` column. */
export function placementOf(table: string, hasTenantId: boolean): Placement | undefined {
  return NOT_DISTRIBUTED[table] ?? (hasTenantId && !table.includes('.') ? 'distributed' : undefined);
}

/** What {@link distributeTables} did. */
export interface DistributionReport {
  /** False when the database is not a Citus coordinator with workers: nothing was done. */
  cluster: boolean;
  /** Tables made reference or distributed by this run (empty when all already were). */
  changed: { table: string; placement: Placement }[];
}

interface CatalogTable {
  name: string;
  has_tenant_id: boolean;
  citus_method: string | null;
}

/** Runs `text` on `client`, answering its rows (the catalog queries below take no request input). */
async function rows<T>(client: pg.ClientBase, text: string, values: unknown[] = []): Promise<T[]> {
  return (await client.query(text, values)).rows as T[];
}

/**
 * On a Citus coordinator with workers, makes every table the placement rules name distributed or
 * reference (the first distributed table anchors the co-location group, every other joins it), and
 * leaves local tables alone; on PGlite or plain PostgreSQL, and on a coordinator without workers,
 * does nothing. Idempotent: tables already placed are skipped, so it runs after every migration.
 * Throws, naming the tables, when a table has no placement. Run by `runMigrations` under its lock.
 */
export async function distributeTables(client: pg.ClientBase): Promise<DistributionReport> {
  const [extension] = await rows<{ installed: boolean }>(
    client,
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') AS installed`,
  );
  if (!extension?.installed) return { cluster: false, changed: [] };
  const [nodes] = await rows<{ workers: number }>(
    client,
    `SELECT count(*)::int AS workers FROM pg_catalog.pg_dist_node WHERE groupid <> 0 AND noderole = 'primary'`,
  );
  if (!nodes?.workers) return { cluster: false, changed: [] };

  const tables = await rows<CatalogTable>(
    client,
    `SELECT CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS name,
       EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1
         AND NOT a.attisdropped) AS has_tenant_id,
       (SELECT p.partmethod::text FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = c.oid) AS citus_method
     FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND n.nspname IN ('public', 'drizzle')
     ORDER BY 1`,
    [DISTRIBUTION_COLUMN],
  );
  const unplaced = tables.filter((t) => !placementOf(t.name, t.has_tenant_id)).map((t) => t.name);
  if (unplaced.length > 0) {
    throw new Error(
      `Cannot place ${unplaced.join(', ')} on the Citus cluster: a table without ${DISTRIBUTION_COLUMN} must be listed in NOT_DISTRIBUTED (src/db/distribute.ts) as reference or local.`,
    );
  }

  const changed: DistributionReport['changed'] = [];
  const quoted = (name: string) =>
    name
      .split('.')
      .map((part) => `"${part}"`)
      .join('.');
  // Reference tables first, in the order listed, so a reference table's foreign key finds its target.
  const byName = new Map(tables.map((t) => [t.name, t]));
  for (const [name, placement] of Object.entries(NOT_DISTRIBUTED)) {
    const table = byName.get(name);
    if (placement !== 'reference' || !table || table.citus_method !== null) continue;
    await client.query('SELECT create_reference_table($1::regclass)', [quoted(name)]);
    changed.push({ table: name, placement });
  }
  const distributed = tables.filter((t) => placementOf(t.name, t.has_tenant_id) === 'distributed');
  let anchor = distributed.find((t) => t.citus_method === 'h')?.name;
  for (const table of distributed) {
    if (table.citus_method !== null) continue;
    await client.query(`SELECT create_distributed_table($1::regclass, $2, colocate_with => $3)`, [
      quoted(table.name),
      DISTRIBUTION_COLUMN,
      anchor ? quoted(anchor) : 'default',
    ]);
    // A table that held rows keeps a copy on the coordinator until it is truncated.
    await client.query('SELECT truncate_local_data_after_distributing_table($1::regclass)', [
      quoted(table.name),
    ]);
    anchor ??= table.name;
    changed.push({ table: table.name, placement: 'distributed' });
  }
  return { cluster: true, changed };
}

const citusInstalled = statement({
  name: 'citus_installed',
  sql: () => sql`SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') AS installed`,
  row: rowOf<{ installed: boolean }>(),
});

/**
 * Whether the database may shard tenants' rows (the `citus` extension is installed): then the
 * webhook dispatcher runs every statement for one tenant (`byTenant`, decision 0233).
 */
export async function shardsByTenant(db: Handle): Promise<boolean> {
  return (await db.first(citusInstalled, {}))?.installed ?? false;
}
