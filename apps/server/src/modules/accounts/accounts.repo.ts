import { type AnyColumn, and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowQuery, selectList } from '../../db/fast.js';
import { accounts, persons } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored account. */
export type AccountRow = typeof accounts.$inferSelect;
/** A stored person. */
export type PersonRow = typeof persons.$inferSelect;

/** Finds a tenant's account by id. */
export async function findAccount(
  db: Db,
  tenantId: string,
  accountId: string,
): Promise<AccountRow | undefined> {
  const rows = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.tenantId, tenantId), eq(accounts.id, accountId)));
  return rows[0];
}

const BY_DOMAIN = `SELECT ${selectList(accounts)} FROM accounts WHERE tenant_id = $1 AND domain = $2`;

/** Finds a tenant's account by canonical domain. */
export async function findAccountByDomain(
  db: Db,
  tenantId: string,
  domain: string,
): Promise<AccountRow | undefined> {
  return (await rowQuery(db)<AccountRow>('account_by_domain', BY_DOMAIN, [tenantId, domain]))[0];
}

/**
 * Inserts the account unless the tenant already has one with this domain (the unique
 * constraint decides between concurrent creators); returns the stored account either way.
 */
export async function insertAccountOrGet(
  db: Db,
  row: typeof accounts.$inferInsert,
): Promise<{ account: AccountRow; created: boolean }> {
  const [inserted] = await db
    .insert(accounts)
    .values(row)
    .onConflictDoNothing({ target: [accounts.tenantId, accounts.domain] })
    .returning();
  if (inserted) return { account: inserted, created: true };
  const existing = await findAccountByDomain(db, row.tenantId, row.domain);
  if (!existing) throw new Error(`account ${row.domain} vanished while being created`);
  return { account: existing, created: false };
}

/** One keyset page of a tenant's accounts, newest first; `emptyOnly` keeps those without persons. */
export async function listAccounts(
  db: Db,
  tenantId: string,
  options: { take: number; emptyOnly: boolean; after: KeysetPosition | undefined },
): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(
      and(
        eq(accounts.tenantId, tenantId),
        // A literal (not a parameter) so that the partial index's predicate always matches.
        options.emptyOnly ? sql`${accounts.linkedPersonsCount} = 0` : undefined,
        options.after ? keysetAfter(accounts.createdAt, accounts.id, options.after) : undefined,
      ),
    )
    .orderBy(desc(accounts.createdAt), desc(accounts.id))
    .limit(options.take);
}

/** The persons linked to an account, oldest first. */
export async function listLinkedPersons(db: Db, tenantId: string, accountId: string): Promise<PersonRow[]> {
  return db
    .select()
    .from(persons)
    .where(and(eq(persons.tenantId, tenantId), eq(persons.accountId, accountId)))
    .orderBy(asc(persons.createdAt), asc(persons.id));
}

/** Column changes {@link bumpAccount} can apply; counters are deltas. */
export interface AccountBump {
  name?: string | undefined;
  activityAt?: Date | undefined;
  linkedPersons?: number;
  accountLogs?: number;
  deletedAccountLogs?: number;
  personLogs?: number;
  deletedPersonLogs?: number;
  /** Set when a visible field changes (name, latest activity, linked persons). */
  updatedAt?: Date | undefined;
}

const plus = (column: AnyColumn, delta: number | undefined) =>
  delta ? sql`${column} + ${delta}` : undefined;

/**
 * Updates an account's name, latest activity and counters in one statement (the row lock keeps
 * the counters exact under concurrent writers) and returns the updated row.
 */
export async function bumpAccount(db: Db, accountId: string, bump: AccountBump): Promise<AccountRow> {
  const set = {
    updatedAt: bump.updatedAt,
    name: bump.name,
    latestActivityAt: bump.activityAt
      ? sql`GREATEST(${accounts.latestActivityAt}, ${bump.activityAt.toISOString()}::timestamptz)`
      : undefined,
    linkedPersonsCount: plus(accounts.linkedPersonsCount, bump.linkedPersons),
    accountLogsCount: plus(accounts.accountLogsCount, bump.accountLogs),
    deletedAccountLogsCount: plus(accounts.deletedAccountLogsCount, bump.deletedAccountLogs),
    personLogsCount: plus(accounts.personLogsCount, bump.personLogs),
    deletedPersonLogsCount: plus(accounts.deletedPersonLogsCount, bump.deletedPersonLogs),
  };
  const defined = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
  const [row] = await db.update(accounts).set(defined).where(eq(accounts.id, accountId)).returning();
  if (!row) throw new Error(`account ${accountId} vanished during update`);
  return row;
}

/**
 * Inserts many accounts in one statement, skipping domains the tenant already has; returns how
 * many were inserted (bulk seeding: the caller adjusts the counters by that number).
 */
export async function insertAccounts(db: Db, rows: Array<typeof accounts.$inferInsert>): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insert(accounts)
    .values(rows)
    .onConflictDoNothing({ target: [accounts.tenantId, accounts.domain] })
    .returning({ id: accounts.id });
  return inserted.length;
}
