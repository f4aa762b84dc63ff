import type { Handle } from '../../db/port.js';
import { rowOf, sql, statement, text, timestamptz } from '../../db/sql.js';

// The updates below change an account's counters in one statement each: the row lock keeps the
// counters exact under concurrent writers. One statement per change, so that each text is fixed.

/** Throws when the update found no account (it is never deleted, so this is a bug). */
function updated(count: number, accountId: string): void {
  if (count === 0) throw new Error(`account ${accountId} vanished during update`);
}

const logRecorded = statement({
  name: 'account_log_recorded',
  params: { tenantId: text, accountId: text, at: timestamptz },
  sql: (p) => sql`UPDATE accounts SET updated_at = ${p.at},
    latest_activity_at = GREATEST(latest_activity_at, ${p.at}::timestamptz),
    account_logs_count = account_logs_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
});

const logRecordedRenamed = statement({
  name: 'account_log_recorded_renamed',
  params: { tenantId: text, accountId: text, at: timestamptz, name: text },
  sql: (p) => sql`UPDATE accounts SET updated_at = ${p.at}, name = ${p.name},
    latest_activity_at = GREATEST(latest_activity_at, ${p.at}::timestamptz),
    account_logs_count = account_logs_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
});

/**
 * Counts a new account log: the account's latest activity moves to `at` (never back), and `name`,
 * when given, renames it. Both are visible changes: `updatedAt` moves to `at`.
 */
export async function recordAccountLog(
  db: Handle,
  tenantId: string,
  accountId: string,
  change: { name: string | undefined; at: Date },
): Promise<void> {
  const { name, at } = change;
  updated(
    name === undefined
      ? await db.run(logRecorded, { tenantId, accountId, at })
      : await db.run(logRecordedRenamed, { tenantId, accountId, at, name }),
    accountId,
  );
}

const personLinked = statement({
  name: 'account_person_linked',
  params: { tenantId: text, accountId: text, at: timestamptz },
  sql: (p) => sql`UPDATE accounts SET updated_at = ${p.at}, linked_persons_count = linked_persons_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}
    RETURNING linked_persons_count AS "linkedPersonsCount"`,
  row: rowOf<{ linkedPersonsCount: number }>(),
});

/**
 * Counts a newly linked person (a visible change: `updatedAt` moves to `at`); resolves to the
 * account's number of linked persons, this one included.
 */
export async function linkPerson(db: Handle, tenantId: string, accountId: string, at: Date): Promise<number> {
  const row = await db.first(personLinked, { tenantId, accountId, at });
  updated(row ? 1 : 0, accountId);
  return row?.linkedPersonsCount ?? 0;
}

const personLogRecorded = statement({
  name: 'account_person_log_recorded',
  params: { tenantId: text, accountId: text },
  sql: (p) => sql`UPDATE accounts SET person_logs_count = person_logs_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
});

/** Counts a new log of one of the account's persons (nothing visible changes). */
export async function countPersonLog(db: Handle, tenantId: string, accountId: string): Promise<void> {
  updated(await db.run(personLogRecorded, { tenantId, accountId }), accountId);
}

const accountLogDeleted = statement({
  name: 'account_account_log_deleted',
  params: { tenantId: text, accountId: text },
  sql: (p) => sql`UPDATE accounts SET deleted_account_logs_count = deleted_account_logs_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
});

const personLogDeleted = statement({
  name: 'account_person_log_deleted',
  params: { tenantId: text, accountId: text },
  sql: (p) => sql`UPDATE accounts SET deleted_person_logs_count = deleted_person_logs_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
});

/** Counts a soft-deleted account log or person log among the account's deleted ones. */
export async function countDeletedLog(
  db: Handle,
  tenantId: string,
  accountId: string,
  kind: 'account' | 'person',
): Promise<void> {
  const deleted = kind === 'account' ? accountLogDeleted : personLogDeleted;
  updated(await db.run(deleted, { tenantId, accountId }), accountId);
}
