import type { JsonObject } from '@customer-api/contract';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/**
 * Accounts, one per canonical domain and tenant. The counters are kept in the same transaction
 * as the rows they count, so that list and activity `totalCount`s are read, never counted:
 * `linked_persons_count` (persons of the account), and per kind of activity the items and the
 * soft-deleted items among them.
 */
export const accounts = pgTable(
  'accounts',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    domain: text('domain').notNull(),
    name: text('name'),
    linkedPersonsCount: integer('linked_persons_count').notNull().default(0),
    accountLogsCount: integer('account_logs_count').notNull().default(0),
    deletedAccountLogsCount: integer('deleted_account_logs_count').notNull().default(0),
    personLogsCount: integer('person_logs_count').notNull().default(0),
    deletedPersonLogsCount: integer('deleted_person_logs_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    latestActivityAt: ts('latest_activity_at'),
  },
  (t) => [
    primaryKey({ name: 'accounts_pkey', columns: [t.tenantId, t.id] }),
    unique('accounts_tenant_domain_key').on(t.tenantId, t.domain),
    // Keyset indexes are ascending and scanned backwards for newest first: ORDER BY … DESC means
    // NULLS FIRST, which drizzle's `.desc()` (DESC NULLS LAST) cannot serve.
    // listAccounts: keyset scans, newest first; the partial one serves includeEmptyOnly=true.
    index('accounts_tenant_list_idx').on(t.tenantId, t.createdAt, t.id),
    index('accounts_tenant_empty_list_idx')
      .on(t.tenantId, t.createdAt, t.id)
      .where(sql`${t.linkedPersonsCount} = 0`),
  ],
);

/**
 * An account's activity: its account logs (`kind` = 'account') and the person logs of its linked
 * persons (`kind` = 'person'), in one table so that one keyset scan pages through both.
 * `idempotency_key` is unique per tenant (NULLs never collide): the constraint, not a read,
 * decides which of several concurrent requests with one key creates the entry.
 */
export const accountActivity = pgTable(
  'account_activity',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    accountId: text('account_id').notNull(),
    kind: text('kind').notNull(),
    logId: text('log_id').notNull(),
    personId: text('person_id'),
    source: text('source').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<JsonObject>().notNull(),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ name: 'account_activity_pkey', columns: [t.tenantId, t.id] }),
    unique('account_activity_log_id_key').on(t.tenantId, t.logId),
    uniqueIndex('account_activity_idempotency_key').on(t.tenantId, t.idempotencyKey),
    // listAccountActivity, newest first: every item (includePersonActivity and includeDeleted) ...
    index('account_activity_all_idx').on(t.tenantId, t.accountId, t.createdAt, t.id),
    // ... account logs with deleted ones (includeDeleted only) ...
    index('account_activity_account_logs_idx')
      .on(t.tenantId, t.accountId, t.createdAt, t.id)
      .where(sql`${t.kind} = 'account'`),
    // ... and the default view: live account logs.
    index('account_activity_live_account_logs_idx')
      .on(t.tenantId, t.accountId, t.createdAt, t.id)
      .where(sql`${t.kind} = 'account' AND ${t.deletedAt} IS NULL`),
  ],
);
