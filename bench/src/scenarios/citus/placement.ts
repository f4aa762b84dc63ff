// What scenario 10 reads from the cluster itself: the statements the coordinator's log shows it
// planned as multi-shard, and where the distributed tables' rows and the tenants are.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import pg from 'pg';
import type { CitusCluster } from '../../lib/clusters.js';
import type { TenantKey } from '../../lib/db.js';
import type { CitusMeasured } from '../../results.js';

const MULTI_TASK = 'multi-task query about to be executed';

/** One statement's rows on a connection of its own. */
const rowsOf = <R extends pg.QueryResultRow>(url: string, text: string, values?: unknown[]): Promise<R[]> => {
  const client = new pg.Client({ connectionString: url });
  return client
    .connect()
    .then(() => client.query<R>(text, values))
    .then((r) => r.rows)
    .finally(() => client.end());
};

/** The coordinator's log from byte `from` on: multi-shard plans, with the statement each was for. */
export function multiShardSince(
  log: string,
  from: number,
): { count: number; statements: Record<string, number>; end: number } {
  const size = statSync(log).size;
  const buffer = Buffer.alloc(Math.max(0, size - from));
  const fd = openSync(log, 'r');
  try {
    readSync(fd, buffer, 0, buffer.length, from);
  } finally {
    closeSync(fd);
  }
  const lines = buffer.toString('utf8').split('\n');
  const statements: Record<string, number> = {};
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
export async function placement(
  cluster: CitusCluster,
  tenants: TenantKey[],
): Promise<Omit<CitusMeasured['placement'], 'totalRows'>> {
  const port = (url: string) => Number(new URL(url).port);
  const nameOf: Record<number, string> = Object.fromEntries(
    cluster.nodes.map((node) => [port(node.url), node.name]),
  );
  const tables = await rowsOf<{ name: string }>(
    cluster.url,
    `SELECT table_name::text AS name FROM citus_tables WHERE citus_table_type = 'distributed'`,
  );
  const rows: Record<string, number> = {};
  for (const { name } of tables) {
    const counts = await rowsOf<{ nodeport: number; result: string }>(
      cluster.url,
      `SELECT s.nodeport, r.result FROM run_command_on_shards($1::regclass, 'SELECT count(*) FROM %s') r
       JOIN citus_shards s ON s.shardid = r.shardid`,
      [name],
    );
    for (const c of counts) {
      const node = String(nameOf[c.nodeport]);
      rows[node] = (rows[node] ?? 0) + Number(c.result);
    }
  }
  const bytes = Object.fromEntries(
    (
      await rowsOf<{ nodeport: number; bytes: string }>(
        cluster.url,
        `SELECT nodeport, sum(shard_size)::bigint AS bytes FROM citus_shards
         WHERE citus_table_type = 'distributed' GROUP BY nodeport`,
      )
    ).map((r) => [String(nameOf[r.nodeport]), Number(r.bytes)]),
  );
  const tenantsOn: Record<string, number> = {};
  for (const tenant of tenants) {
    const [where] = await rowsOf<{ nodeport: number }>(
      cluster.url,
      `SELECT nodeport FROM citus_shards WHERE shardid = get_shard_id_for_distribution_column('accounts', $1::text)`,
      [tenant.tenantId],
    );
    const node = String(nameOf[where?.nodeport ?? -1]);
    tenantsOn[node] = (tenantsOn[node] ?? 0) + 1;
  }
  return { tables: tables.length, rows, bytes, tenantsOn };
}
