import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The repository's `deploy/citus/cluster.sh`: the cluster this suite runs on, as developers start it. */
export const CLUSTER_SCRIPT = resolve(import.meta.dirname, '../../../deploy/citus/cluster.sh');

/** Where a shard placement is: its shard and the worker's port (every node is on 127.0.0.1). */
export interface ShardPlacement {
  shardid: string;
  port: number;
}

/**
 * The cluster `deploy/citus/run.sh` started (CITUS_DIR and CITUS_PORT of its own), the faults the
 * scenario applies to it through `cluster.sh`, and the catalog queries that find a tenant's shards.
 */
export class CitusCluster {
  readonly port: number;
  readonly admin: pg.Pool;

  constructor(port: number) {
    this.port = port;
    this.admin = new pg.Pool({ connectionString: this.databaseUrl, max: 2 });
    this.admin.on('error', () => {});
  }

  /** The run's cluster; refuses the default port, which another engineer's cluster may hold. */
  static fromEnv(): CitusCluster {
    const port = Number(process.env.CITUS_PORT);
    if (!process.env.CITUS_DIR || !Number.isInteger(port) || port <= 0)
      throw new Error(
        'run through deploy/citus/run.sh (`pnpm test:citus`): CITUS_DIR and CITUS_PORT are unset',
      );
    return new CitusCluster(port);
  }

  get databaseUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/customer_api`;
  }

  /** Worker n's port (1-based), as cluster.sh numbers them. */
  workerPort(n: number): number {
    return this.port + n;
  }

  /** Runs `cluster.sh` with the run's CITUS_DIR and CITUS_PORT; resolves to its stdout. */
  async script(...args: string[]): Promise<string> {
    const { stdout } = await run('bash', [CLUSTER_SCRIPT, ...args], { env: process.env });
    return stdout;
  }

  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.admin.query<T>(text, values)).rows;
  }

  /** The active primary workers' ports. */
  async workers(): Promise<number[]> {
    const rows = await this.query<{ nodeport: number }>(
      `SELECT nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive ORDER BY nodeport`,
    );
    return rows.map((r) => r.nodeport);
  }

  /** Tenant name → the id the server stores in `tenant_id`. */
  async tenantIds(names: string[]): Promise<Map<string, string>> {
    const rows = await this.query<{ id: string; name: string }>(
      'SELECT id, name FROM tenants WHERE name = ANY($1)',
      [names],
    );
    return new Map(rows.map((r) => [r.name, r.id]));
  }

  /** Where a tenant's shard group is: the shard of `pages` holding its rows, and its worker. */
  async placementOf(tenantId: string): Promise<ShardPlacement> {
    const [row] = await this.query<{ shardid: string; nodeport: number }>(
      `SELECT p.shardid::text AS shardid, p.nodeport FROM pg_dist_shard_placement p
       WHERE p.shardid = get_shard_id_for_distribution_column('pages', $1::text)`,
      [tenantId],
    );
    if (!row) throw new Error(`no placement for tenant ${tenantId}`);
    return { shardid: row.shardid, port: row.nodeport };
  }

  /** Every placement of a hash-distributed table's shard: shard id → worker port. */
  async distributedPlacements(): Promise<Map<string, number>> {
    const rows = await this.query<{ shardid: string; nodeport: number }>(
      `SELECT p.shardid::text AS shardid, p.nodeport FROM pg_dist_shard_placement p
       JOIN pg_dist_shard s ON s.shardid = p.shardid
       JOIN pg_dist_partition t ON t.logicalrelid = s.logicalrelid
       WHERE t.partmethod = 'h'`,
    );
    return new Map(rows.map((r) => [r.shardid, r.nodeport]));
  }

  /** Moves a shard (and its co-located shards: the whole group) to another worker, online. */
  async moveShard(shardid: string, from: number, to: number): Promise<void> {
    await this.admin.query(
      `SELECT citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, '127.0.0.1', $3::int,
         shard_transfer_mode => 'force_logical')`,
      [shardid, from, to],
    );
  }

  /** Starts a rebalance in the background and waits until it has finished. */
  async rebalance(): Promise<void> {
    await this.admin.query('SELECT citus_rebalance_start()');
    await this.admin.query('SELECT citus_rebalance_wait()');
    const [status] = await this.query<{ state: string }>(
      'SELECT state::text FROM citus_rebalance_status() ORDER BY job_id DESC LIMIT 1',
    );
    if (status && status.state !== 'finished') throw new Error(`rebalance ended ${status.state}`);
  }

  async close(): Promise<void> {
    await this.admin.end().catch(() => {});
  }
}
