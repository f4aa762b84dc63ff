import pg from 'pg';
import type { TestContext } from 'vitest';
import type { Handle } from '../db/port.js';
import { query } from './sql.js';
import type { TestDatabase } from './test-database.js';

/** A connection to the file's database, and whether that database is on a Citus coordinator. */
export interface CitusProbe {
  /** Undefined on PGlite. */
  client: pg.Client | undefined;
  citus: boolean;
}

/** Connects to `testDb` (PostgreSQL only) and asks whether Citus placed its tables. */
export async function probeCitus(testDb: TestDatabase): Promise<CitusProbe> {
  if (!testDb.url) return { client: undefined, citus: false };
  const client = new pg.Client({ connectionString: testDb.url });
  await client.connect();
  const { rows } = await client.query(
    `SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL AS citus`,
  );
  return { client, citus: Boolean(rows[0]?.citus) };
}

/**
 * Skips the test when the database is not on a Citus cluster, or fails it when
 * `TEST_REQUIRE_CITUS=1` (`pnpm test:citus --router`, where a skip would pass silently).
 * Returns the client when the test may go on.
 */
export function requireCitus(probe: CitusProbe, context: TestContext): pg.Client | undefined {
  if (probe.client && probe.citus) return probe.client;
  if (process.env.TEST_REQUIRE_CITUS === '1') throw new Error('TEST_DATABASE_URL is not a Citus coordinator');
  context.skip('needs TEST_DATABASE_URL at a Citus coordinator with workers (pnpm test:citus)');
  return undefined;
}

/**
 * Whether `db` is a Citus coordinator that placed its tables. Plan-shape tests of one PostgreSQL
 * (index names, `SET LOCAL` planner switches) do not apply there: the workers plan each shard, and
 * `router-queries.test.ts` checks what matters on a cluster.
 */
export async function isCitus(db: Handle): Promise<boolean> {
  const [row] = await query<{ citus: boolean }>(
    db,
    `SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL AS citus`,
  );
  return Boolean(row?.citus);
}
