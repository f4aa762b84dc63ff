import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import { sql, statement } from '../db/sql.js';
import { adjustCounter } from '../lib/counters.js';
import { newId } from '../lib/ids.js';
import {
  ACCOUNTS_COUNTER,
  EMPTY_ACCOUNTS_COUNTER,
  insertAccountsInBulk,
} from '../modules/accounts/accounts.service.js';
import type { Progress } from './progress.js';

/**
 * Rows per INSERT (one array parameter per column, whatever the size): a batch is one transaction,
 * so an interrupted run loses at most this many, and each holds the counter rows briefly.
 */
export const SEED_BATCH_SIZE = 2000;

const analyze = statement({ name: 'accounts_analyze', sql: () => sql`ANALYZE accounts` });

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
      domain: `${run}-${start + i + 1}.seed.example`,
      name: `Seed account ${start + i + 1}`,
      createdAt: now,
      updatedAt: now,
    }));
    inserted += await database.db.transaction(async (tx) => {
      const added = await insertAccountsInBulk(tx, tenantId, rows);
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
  await database.db.run(analyze, {});
  return inserted;
}
