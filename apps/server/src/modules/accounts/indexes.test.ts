import { sql } from 'drizzle-orm';
import type { Logger } from 'drizzle-orm/logger';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import { rowQuery } from '../../db/fast.js';
import * as schema from '../../db/schema/index.js';
import { useTestApp } from '../../test/test-app.js';
import * as assetsRepo from '../assets/assets.repo.js';
import * as topicsRepo from '../topics/topics.repo.js';
import * as accountsRepo from './accounts.repo.js';
import * as activityRepo from './activity.repo.js';

const t = useTestApp();

interface Statement {
  text: string;
  params: unknown[];
}

/**
 * The statement a repo function sends, exactly as it sends it: the function runs on a second
 * drizzle handle over the same connection, whose logger keeps what it sees.
 */
async function statementOf(run: (db: Db) => Promise<unknown>): Promise<Statement> {
  const seen: Statement[] = [];
  const logger: Logger = { logQuery: (text, params) => seen.push({ text, params }) };
  const { pool, pglite } = t.database;
  const handle = pool
    ? drizzlePg({ client: pool, schema, logger })
    : pglite && drizzlePglite({ client: pglite, schema, logger });
  if (!handle) throw new Error('the test database has neither a pool nor a PGlite instance');
  const db = handle as unknown as Db;
  await run(db);
  expect(seen).toHaveLength(1);
  return seen[0] as Statement;
}

/**
 * The plan of a statement when sequential scans and sorts are all but forbidden: a keyset listing
 * whose index cannot deliver its order (e.g. a DESC NULLS LAST index for ORDER BY … DESC) shows a
 * Sort node or another index here, at any table size.
 */
async function plan(name: string, statement: Statement): Promise<string> {
  return t.database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`);
    await tx.execute(sql`SET LOCAL enable_sort = off`);
    const rows = await rowQuery(tx)(name, `EXPLAIN ${statement.text}`, statement.params);
    return JSON.stringify(rows);
  });
}

const after = { createdAt: new Date('2026-01-01T00:00:00Z'), id: 'x' };
const activity = (includePersonActivity: boolean, includeDeleted: boolean) => (db: Db) =>
  activityRepo.listActivity(
    db,
    { tenantId: 't', accountId: 'a', includePersonActivity, includeDeleted },
    21,
    after,
  );

describe("keyset listings' own statements are index scans in list order", () => {
  const cases: Array<[string, (db: Db) => Promise<unknown>, string]> = [
    ['activity, default view', activity(false, false), 'account_activity_live_account_logs_idx'],
    ['activity, includeDeleted', activity(false, true), 'account_activity_account_logs_idx'],
    ['activity, includePersonActivity and includeDeleted', activity(true, true), 'account_activity_all_idx'],
    [
      'accounts',
      (db) => accountsRepo.listAccounts(db, 't', { take: 21, emptyOnly: false, after }),
      'accounts_tenant_list_idx',
    ],
    [
      'accounts, includeEmptyOnly',
      (db) => accountsRepo.listAccounts(db, 't', { take: 21, emptyOnly: true, after }),
      'accounts_tenant_empty_list_idx',
    ],
    [
      'trash by assetType',
      (db) => assetsRepo.listTrash(db, { tenantId: 't', assetType: 'logo' }, 21, undefined),
      'assets_trash_type_idx',
    ],
    [
      'topics',
      (db) => topicsRepo.listTopics(db, 't', 21, { sortOrder: 0, id: 'x' }),
      'topics_tenant_list_idx',
    ],
  ];

  cases.forEach(([name, run, index], i) => {
    it(`${name}: ${index}`, async () => {
      const text = await plan(`test_index_plan_${i}`, await statementOf(run));
      expect(text).toContain(index);
      expect(text).not.toMatch(/"Sort|Sort Key/);
    });
  });
});
