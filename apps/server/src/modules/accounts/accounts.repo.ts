import { type AnyColumn, and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { joinedRow, rowQuery, selectList } from '../../db/fast.js';
import { accounts, persons } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored account. */
export type AccountRow = typeof accounts.$inferSelect;
/** A stored person. */
export type PersonRow = typeof persons.$inferSelect;

const BY_ID = `SELECT ${selectList(accounts)} FROM accounts WHERE tenant_id = $1 AND id = $2`;

/** Finds a tenant's account by id (a fixed statement: read by every account log and activity list). */
export async function findAccount(
  db: Db,
  tenantId: string,
  accountId: string,
): Promise<AccountRow | undefined> {
  return (await rowQuery(db)<AccountRow>('account_by_id', BY_ID, [tenantId, accountId]))[0];
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

const ACCOUNT_PREFIX = 'account.';
const PERSON_PREFIX = 'person.';
const WITH_LINKED = `SELECT ${selectList(accounts, { alias: 'a', prefix: ACCOUNT_PREFIX })}, ${selectList(persons, { alias: 'p', prefix: PERSON_PREFIX })}
  FROM accounts a LEFT JOIN persons p ON p.tenant_id = a.tenant_id AND p.account_id = a.id
  WHERE a.tenant_id = $1 AND a.id = $2
  ORDER BY p.created_at, p.id`;

/**
 * A tenant's account with its linked persons (oldest first) in one statement, one round trip:
 * `getAccount` made two, one after the other, and each is a chance to wait for a busy core.
 */
export async function findAccountWithLinked(
  db: Db,
  tenantId: string,
  accountId: string,
): Promise<{ account: AccountRow; linked: PersonRow[] } | undefined> {
  const rows = await rowQuery(db)<Record<string, unknown>>('account_with_linked', WITH_LINKED, [
    tenantId,
    accountId,
  ]);
  const account = rows[0] && joinedRow<AccountRow>(rows[0], ACCOUNT_PREFIX);
  if (!account) return undefined;
  const linked: PersonRow[] = [];
  for (const row of rows) {
    const person = joinedRow<PersonRow>(row, PERSON_PREFIX);
    if (person) linked.push(person);
  }
  return { account, linked };
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
