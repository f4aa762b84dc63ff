import { describe, expect, it } from 'vitest';
import type { Handle } from '../../db/port.js';
import { query, type Sent, statementOf } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';
import * as assetsRepo from '../assets/assets.repo.js';
import * as topicsRepo from '../topics/topics.repo.js';
import * as accountsRepo from './accounts.repo.js';
import * as activityRepo from './activity.repo.js';

const t = useTestApp();

/**
 * The plan of a statement when sequential scans and sorts are all but forbidden: a keyset listing
 * whose index cannot deliver its order (e.g. a DESC NULLS LAST index for ORDER BY … DESC) shows a
 * Sort node or another index here, at any table size.
 */
async function plan(sent: Sent): Promise<string> {
  return t.database.db.transaction(async (tx) => {
    await query(tx, 'SET LOCAL enable_seqscan = off');
    await query(tx, 'SET LOCAL enable_sort = off');
    return JSON.stringify(await query(tx, `EXPLAIN ${sent.text}`, sent.values));
  });
}

const after = { createdAt: new Date('2026-01-01T00:00:00Z'), id: 'x' };
const activity =
  (includePersonActivity: boolean, includeDeleted: boolean, from: typeof after | undefined = after) =>
  (db: Handle) =>
    activityRepo.listActivity(
      db,
      { tenantId: 't', accountId: 'a', includePersonActivity, includeDeleted },
      21,
      from,
    );

describe("keyset listings' own statements are index scans in list order", () => {
  const cases: Array<[string, (db: Handle) => Promise<unknown>, string]> = [
    ['activity, default view', activity(false, false), 'account_activity_live_account_logs_idx'],
    [
      'activity, default view, first page',
      activity(false, false, undefined),
      'account_activity_live_account_logs_idx',
    ],
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
      'accounts, includeEmptyOnly, first page',
      (db) => accountsRepo.listAccounts(db, 't', { take: 21, emptyOnly: true, after: undefined }),
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

  cases.forEach(([name, run, index]) => {
    it(`${name}: ${index}`, async () => {
      const text = await plan(await statementOf(t.database.db, run));
      expect(text).toContain(index);
      expect(text).not.toMatch(/"Sort|Sort Key/);
    });
  });
});
