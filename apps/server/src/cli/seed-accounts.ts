import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { accounts } from '../db/schema/index.js';
import { adjustCounter } from '../lib/counters.js';
import { newId } from '../lib/ids.js';
import { insertAccounts } from '../modules/accounts/accounts.repo.js';
import { ACCOUNTS_COUNTER, EMPTY_ACCOUNTS_COUNTER } from '../modules/accounts/accounts.service.js';
import type { Progress } from './progress.js';

/** Rows per INSERT: 7 parameters a row stays far below PostgreSQL's 65,535 per statement. */
export const SEED_BATCH_SIZE = 2000;

/**
 * Adds `count` accounts to a tenant for trying the API on large data: one multi-row INSERT per
 * batch, each in a transaction with its counter updates, so `totalCount`s stay exact even if the
 * run is interrupted. Domains are `<run>-<n>.seed.example`, new on every run. The table is analyzed
 * afterwards so the planner sees its new size. Returns the number inserted.
 */
export async function seedAccounts(
  database: Database,
  tenantId: string,
  count: number,
  progress: Progress,
): Promise<number> {
  const run = randomBytes(4).toString('hex');
  let inserted = 0;
  for (let start = 0; start < count; start += SEED_BATCH_SIZE) {
    const size = Math.min(SEED_BATCH_SIZE, count - start);
    const now = new Date();
    const rows = Array.from({ length: size }, (_, i) => ({
      id: newId('account'),
      tenantId,
      domain: `${run}-${start + i + 1}.seed.example`,
      name: `Seed account ${start + i + 1}`,
      createdAt: now,
      updatedAt: now,
    }));
    inserted += await database.db.transaction(async (tx) => {
      const added = await insertAccounts(tx, rows);
      // New accounts have no persons: they count among all accounts and the empty ones.
      await adjustCounter(tx, tenantId, ACCOUNTS_COUNTER, added);
      await adjustCounter(tx, tenantId, EMPTY_ACCOUNTS_COUNTER, added);
      return added;
    });
    progress.increment(size);
  }
  // Autovacuum may take minutes to notice a bulk load (PGlite has none): until then the planner
  // believes the table is as small as before and picks plans that get slow at this size
  // (includeEmptyOnly at 200k accounts: 330 ms stale, 6 ms analyzed).
  await database.db.execute(sql`ANALYZE ${accounts}`);
  return inserted;
}
