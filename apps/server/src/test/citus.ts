import pg from 'pg';
import { afterAll, beforeAll, type TestContext } from 'vitest';
import { loadTestSettings } from '../config.js';
import type { Handle } from '../db/port.js';
import { query } from './sql.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Whether Citus placed the database's tables: its catalog of distributed tables exists. */
const CITUS_PLACED = `SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL AS citus`;

/** The file's database, a connection to it (PostgreSQL only), and whether it is on a Citus coordinator. */
export interface CitusProbe {
  readonly testDb: TestDatabase;
  /** Undefined on PGlite. */
  readonly client: pg.Client | undefined;
  readonly citus: boolean;
}

/**
 * Creates the file's database (on every node of a cluster, see `createTestDatabase`) and connects
 * to it before the file's tests, and closes both after them. Read the answer inside tests.
 */
export function useCitusProbe(): () => CitusProbe {
  let probe: CitusProbe | undefined;
  beforeAll(async () => {
    const testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    if (!testDb.url) {
      probe = { testDb, client: undefined, citus: false };
      return;
    }
    const client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    const { rows } = await client.query<{ citus: boolean }>(CITUS_PLACED);
    probe = { testDb, client, citus: Boolean(rows[0]?.citus) };
  }, 120_000);
  afterAll(async () => {
    await probe?.client?.end();
    await probe?.testDb.dispose();
  });
  return () => {
    if (!probe) throw new Error('the Citus probe runs before the tests (beforeAll)');
    return probe;
  };
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
  const [row] = await query<{ citus: boolean }>(db, CITUS_PLACED);
  return Boolean(row?.citus);
}

/**
 * Skips a test of the delivery engine's statements that span tenants (the fair claim, the
 * hand-over, the batch with a claim riding along) on a Citus coordinator: Citus refuses them there,
 * and a dispatcher on a cluster runs their per-tenant forms instead (`tenant-claims.test.ts`,
 * decision 0233).
 */
export async function skipSpanningTenantsOnCitus(
  db: Handle,
  context: { skip: (note?: string) => never },
): Promise<void> {
  if (await isCitus(db))
    context.skip('spans tenants in one statement: on a cluster the dispatcher runs per tenant');
}
