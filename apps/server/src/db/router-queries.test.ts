import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { readSchema } from '../test/catalog.js';
import { requireCitus, useCitusProbe } from '../test/citus.js';
import { CROSS_TENANT, ONE_SERVER_ONLY, placementsOf } from '../test/distribution.js';
import { classifyStatement } from '../test/distribution-sql.js';
import { serverStatements } from '../test/statements.js';

// On a Citus cluster (TEST_DATABASE_URL at a coordinator with workers: `pnpm test:citus`, or
// deploy/citus/cluster.sh), every statement the server runs for one tenant must be a router query:
// Citus plans it onto one shard. Elsewhere there is no planner to ask, and the test says so.

const citusProbe = useCitusProbe();

const TENANT = 'ten_router_check';
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The task counts of the plan Citus makes for `text` run for one tenant: every text parameter is
 * the tenant's id (a statement pins its tenant with one), every other parameter null. An error
 * (a statement Citus refuses to plan) is returned as its message.
 */
async function taskCounts(db: pg.Client, text: string): Promise<number[] | string> {
  await db.query('BEGIN');
  try {
    // ANALYZE cannot be prepared or explained: Citus runs it on every shard, or fails here.
    if (/^\s*ANALYZE\b/i.test(text)) {
      await db.query(text);
      return [];
    }
    await db.query(`PREPARE router_check AS ${text}`);
    const { rows } = await db.query<{ types: string[] }>(
      `SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'router_check'`,
    );
    const args = (rows[0]?.types ?? []).map((type) => (type === 'text' ? literal(TENANT) : 'NULL'));
    const execute = `EXECUTE router_check${args.length > 0 ? `(${args.join(', ')})` : ''}`;
    const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${execute}`);
    const lines = plan.rows.map((r) => r['QUERY PLAN']);
    return lines.flatMap((line) => {
      const match = /Task Count: (\d+)/.exec(line);
      return match ? [Number(match[1])] : [];
    });
  } catch (error) {
    return (error as Error).message;
  } finally {
    await db.query('ROLLBACK');
    await db.query('DEALLOCATE ALL');
  }
}

describe('statements on a Citus cluster', () => {
  it('plans every statement of one tenant onto one shard', async (context) => {
    const client = requireCitus(citusProbe(), context);
    if (!client) return;
    const placements = placementsOf(await readSchema(citusProbe().testDb.database.db));
    const statements = [...(await serverStatements())].sort(([a], [b]) => a.localeCompare(b));
    const multiShard: string[] = [];
    let checked = 0;
    for (const [name, text] of statements) {
      if (name in CROSS_TENANT) continue;
      if (classifyStatement(text, placements).route === 'no-distributed-table') continue;
      checked += 1;
      const counts = await taskCounts(client, text);
      if (typeof counts === 'string') multiShard.push(`${name}: Citus refused to plan it: ${counts}`);
      else if (counts.some((n) => n > 1)) multiShard.push(`${name}: tasks ${counts.join(', ')}`);
    }
    console.info(`router queries: ${checked} statements on distributed tables checked`);
    expect(multiShard).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  }, 300_000);

  it('runs every cross-tenant statement but those the list says it refuses', async (context) => {
    const client = requireCitus(citusProbe(), context);
    if (!client) return;
    const statements = await serverStatements();
    const refused: Record<string, string> = {};
    for (const name of Object.keys(CROSS_TENANT).sort()) {
      const counts = await taskCounts(client, statements.get(name) ?? '');
      if (typeof counts === 'string') refused[name] = counts;
    }
    console.info(`cross-tenant statements Citus refuses: ${JSON.stringify(refused, null, 1)}`);
    expect(Object.keys(refused)).toEqual(Object.keys(ONE_SERVER_ONLY).sort());
  }, 300_000);

  it('has a statement for one tenant in place of each it refuses, planned onto one shard', async (context) => {
    const client = requireCitus(citusProbe(), context);
    if (!client) return;
    const statements = await serverStatements();
    const instead = [...new Set(Object.values(ONE_SERVER_ONLY).flatMap((e) => e.instead))].sort();
    const plans: Record<string, string> = {};
    for (const name of instead) {
      const text = statements.get(name);
      const counts = text === undefined ? 'not defined' : await taskCounts(client, text);
      plans[name] = typeof counts === 'string' ? counts : counts.every((n) => n <= 1) ? 'one shard' : 'multi';
    }
    // webhook_queue_attempts routes each row to its tenant's shard (a per-tenant batch: one).
    expect(plans).toEqual(Object.fromEntries(instead.map((name) => [name, 'one shard'])));
  }, 300_000);
});
