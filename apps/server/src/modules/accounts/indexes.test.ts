import { type SQL, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

/**
 * The plan of a query when sequential scans and sorts are all but forbidden: a keyset listing
 * whose index cannot deliver its order (e.g. a DESC NULLS LAST index for ORDER BY … DESC) shows a
 * Sort node or another index here, at any table size.
 */
async function plan(query: SQL): Promise<string> {
  return t.database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL enable_seqscan = off`);
    await tx.execute(sql`SET LOCAL enable_sort = off`);
    const result: unknown = await tx.execute(sql`EXPLAIN ${query}`);
    return JSON.stringify((result as { rows?: unknown }).rows ?? result);
  });
}

const after = sql`(created_at, id) < ('2026-01-01T00:00:00Z'::timestamptz, 'x')`;

describe('keyset listings are index scans in list order', () => {
  const cases: Array<[string, SQL, string]> = [
    [
      'activity, default view',
      sql`SELECT id FROM account_activity WHERE tenant_id = 't' AND account_id = 'a' AND kind = 'account'
          AND deleted_at IS NULL AND ${after} ORDER BY created_at DESC, id DESC LIMIT 21`,
      'account_activity_live_account_logs_idx',
    ],
    [
      'activity, includeDeleted',
      sql`SELECT id FROM account_activity WHERE tenant_id = 't' AND account_id = 'a' AND kind = 'account'
          AND ${after} ORDER BY created_at DESC, id DESC LIMIT 21`,
      'account_activity_account_logs_idx',
    ],
    [
      'activity, includePersonActivity and includeDeleted',
      sql`SELECT id FROM account_activity WHERE tenant_id = 't' AND account_id = 'a' AND ${after}
          ORDER BY created_at DESC, id DESC LIMIT 21`,
      'account_activity_all_idx',
    ],
    [
      'accounts',
      sql`SELECT id FROM accounts WHERE tenant_id = 't' AND ${after} ORDER BY created_at DESC, id DESC LIMIT 21`,
      'accounts_tenant_list_idx',
    ],
    [
      'accounts, includeEmptyOnly',
      sql`SELECT id FROM accounts WHERE tenant_id = 't' AND linked_persons_count = 0 AND ${after}
          ORDER BY created_at DESC, id DESC LIMIT 21`,
      'accounts_tenant_empty_list_idx',
    ],
    [
      'trash by assetType',
      sql`SELECT id FROM assets WHERE tenant_id = 't' AND trashed_at IS NOT NULL AND deleted_at IS NULL
          AND data_type = 'logo' ORDER BY trashed_at DESC, id DESC LIMIT 21`,
      'assets_trash_type_idx',
    ],
    [
      'topics',
      sql`SELECT id FROM topics WHERE tenant_id = 't' AND (sort_order, id) > (0, 'x')
          ORDER BY sort_order, id LIMIT 21`,
      'topics_tenant_list_idx',
    ],
  ];

  for (const [name, query, index] of cases) {
    it(`${name}: ${index}`, async () => {
      const text = await plan(query);
      expect(text).toContain(index);
      expect(text).not.toMatch(/"Sort|Sort Key/);
    });
  }
});
