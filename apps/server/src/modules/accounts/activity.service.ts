import type { AccountActivityItem, ListAccountActivityQuerySchema, Paginated } from '@customer-api/contract';
import type { z } from 'zod';
import type { Tx } from '../../db/port.js';
import { iso } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import { keysetPage } from '../../lib/pagination.js';
import * as countersRepo from './account-counters.repo.js';
import type { AccountRow } from './accounts.repo.js';
import { type AccountsDeps, requireAccount } from './accounts.service.js';
import * as repo from './activity.repo.js';

/** Maps a stored item; fields that do not apply to its kind are omitted (see the contract). */
export function toActivityItem(row: repo.ActivityWithPerson): AccountActivityItem {
  const isAccountLog = row.kind === 'account';
  return {
    activityId: row.id,
    accountId: row.accountId,
    ...(isAccountLog ? { accountLogId: row.logId } : {}),
    ...(!isAccountLog && row.personId ? { personId: row.personId, personLogId: row.logId } : {}),
    ...(!isAccountLog && row.personName !== null ? { personName: row.personName } : {}),
    source: row.source,
    type: row.type,
    payload: row.payload,
    ...(row.idempotencyKey === null ? {} : { idempotencyKey: row.idempotencyKey }),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...(row.deletedAt === null ? {} : { deletedAt: iso(row.deletedAt) }),
  };
}

/** The exact number of items a filter matches, from the account's maintained counters. */
export function activityCount(
  account: AccountRow,
  filter: Omit<repo.ActivityFilter, 'tenantId' | 'accountId'>,
): number {
  let count = account.accountLogsCount - (filter.includeDeleted ? 0 : account.deletedAccountLogsCount);
  if (filter.includePersonActivity) {
    count += account.personLogsCount - (filter.includeDeleted ? 0 : account.deletedPersonLogsCount);
  }
  return count;
}

/**
 * Lists an account's activity, newest first: its account logs, with `includePersonActivity`
 * also its persons' logs, with `includeDeleted` also soft-deleted items.
 */
export async function listAccountActivity(
  deps: AccountsDeps,
  tenantId: string,
  accountId: string,
  query: z.output<typeof ListAccountActivityQuerySchema>,
): Promise<Paginated<AccountActivityItem>> {
  const filter: repo.ActivityFilter = {
    tenantId,
    accountId,
    includePersonActivity: query.includePersonActivity ?? false,
    includeDeleted: query.includeDeleted ?? false,
  };
  const account = await requireAccount(deps.db, tenantId, accountId);
  return keysetPage({
    cursors: deps.cursors,
    binding: {
      tenantId,
      operation: 'listAccountActivity',
      filters: {
        accountId,
        includePersonActivity: filter.includePersonActivity,
        includeDeleted: filter.includeDeleted,
      },
    },
    query,
    fetch: (take, after) => repo.listActivity(deps.db, filter, take, after),
    count: () => activityCount(account, filter),
    map: toActivityItem,
  });
}

/** Sets `deletedAt` on an item and counts it among its account's deleted logs. */
async function markDeleted(tx: Tx, row: repo.ActivityRow, at: Date): Promise<void> {
  const kind = row.kind === 'account' ? 'account' : 'person';
  await repo.markActivityDeleted(tx, row.tenantId, row.id, at);
  await countersRepo.countDeletedLog(tx, row.tenantId, row.accountId, kind);
}

/**
 * Soft-deletes an account log or a person log by its id (for `deleteAccountLog` and
 * `deletePersonLog`): it then shows only with `includeDeleted=true`, and the account's counters stay exact. Deleting it
 * again changes nothing and returns the same item.
 */
export async function deleteLog(
  deps: Pick<AccountsDeps, 'db' | 'clock'>,
  tenantId: string,
  kind: 'account' | 'person',
  logId: string,
): Promise<AccountActivityItem> {
  return deps.db.transaction(async (tx) => {
    const row = await repo.findActivityByLog(tx, tenantId, kind, logId);
    if (!row) throw new NotFoundError(`${kind === 'account' ? 'Account' : 'Person'} log ${logId} not found.`);
    let current = row;
    if (!row.deletedAt) {
      const now = deps.clock();
      await markDeleted(tx, row, now);
      current = { ...row, deletedAt: now, updatedAt: now };
    }
    const personName = row.personId ? await repo.personNameOf(tx, tenantId, row.personId) : null;
    return toActivityItem({ ...current, personName });
  });
}

/** A person's log as the person-logs module records it. */
export interface PersonActivity {
  tenantId: string;
  accountId: string;
  personId: string;
  source: string;
  type: string;
  payload: repo.NewActivity['payload'];
}

/**
 * Records a person's log as an item of its account's activity and counts it on the account, in the
 * caller's transaction (the account's `latestActivityAt` does not move: it tracks its own logs).
 */
export async function recordPersonActivity(
  tx: Tx,
  deps: Pick<AccountsDeps, 'clock' | 'ids'>,
  log: PersonActivity,
): Promise<repo.ActivityRow> {
  const now = deps.clock();
  const inserted = await repo.insertActivity(tx, {
    id: deps.ids('activity'),
    tenantId: log.tenantId,
    accountId: log.accountId,
    kind: 'person',
    logId: deps.ids('personlog'),
    personId: log.personId,
    source: log.source,
    type: log.type,
    payload: log.payload,
    idempotencyKey: null,
    requestHash: null,
    createdAt: now,
    updatedAt: now,
  });
  if (!inserted) throw new Error('person log insert returned no row');
  await countersRepo.countPersonLog(tx, log.tenantId, log.accountId);
  return inserted;
}
