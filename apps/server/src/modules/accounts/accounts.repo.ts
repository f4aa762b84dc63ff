import type { Handle } from '../../db/port.js';
import { accounts, persons } from '../../db/schema/index.js';
import {
  columns,
  insertValues,
  int,
  joined,
  nullable,
  type Param,
  raw,
  rowOf,
  type Sql,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
  timestamptzArray,
} from '../../db/sql.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored account. */
export type AccountRow = typeof accounts.$inferSelect;
/** A stored person. */
export type PersonRow = typeof persons.$inferSelect;
/** An account as created (its counters start at 0, its latest activity at null). */
export type NewAccount = Pick<AccountRow, 'id' | 'tenantId' | 'domain' | 'name' | 'createdAt' | 'updatedAt'>;

const ACCOUNT = columns(accounts);

const byId = statement({
  name: 'account_by_id',
  params: { tenantId: text, accountId: text },
  sql: (p) => sql`SELECT ${ACCOUNT} FROM accounts WHERE tenant_id = ${p.tenantId} AND id = ${p.accountId}`,
  row: rowOf<AccountRow>(),
});

/** Finds a tenant's account by id (read by every account log and activity list). */
export function findAccount(
  db: Handle,
  tenantId: string,
  accountId: string,
): Promise<AccountRow | undefined> {
  return db.first(byId, { tenantId, accountId });
}

const byDomain = statement({
  name: 'account_by_domain',
  params: { tenantId: text, domain: text },
  sql: (p) => sql`SELECT ${ACCOUNT} FROM accounts WHERE tenant_id = ${p.tenantId} AND domain = ${p.domain}`,
  row: rowOf<AccountRow>(),
});

/** Finds a tenant's account by canonical domain. */
export function findAccountByDomain(
  db: Handle,
  tenantId: string,
  domain: string,
): Promise<AccountRow | undefined> {
  return db.first(byDomain, { tenantId, domain });
}

const insertOrSkip = statement({
  name: 'account_insert_or_skip',
  params: {
    id: text,
    tenantId: text,
    domain: text,
    name: nullable(text),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO accounts ${insertValues(accounts, p)}
    ON CONFLICT (tenant_id, domain) DO NOTHING RETURNING ${ACCOUNT}`,
  row: rowOf<AccountRow>(),
});

/**
 * Inserts the account unless the tenant already has one with this domain (the unique
 * constraint decides between concurrent creators); returns the stored account either way.
 */
export async function insertAccountOrGet(
  db: Handle,
  row: NewAccount,
): Promise<{ account: AccountRow; created: boolean }> {
  const inserted = await db.first(insertOrSkip, row);
  if (inserted) return { account: inserted, created: true };
  const existing = await findAccountByDomain(db, row.tenantId, row.domain);
  if (!existing) throw new Error(`account ${row.domain} vanished while being created`);
  return { account: existing, created: false };
}

/**
 * The statements of one listing of accounts: `emptyOnly` keeps those without persons with a
 * literal (not a parameter), so that the partial index's predicate always matches.
 */
function listStatements(emptyOnly: boolean) {
  const variant = emptyOnly ? 'accounts_empty_list' : 'accounts_list';
  const where = (p: { tenantId: Param<string> }): Sql =>
    sql`tenant_id = ${p.tenantId}${raw(emptyOnly ? ' AND linked_persons_count = 0' : '')}`;
  const order = raw('ORDER BY created_at DESC, id DESC');
  return {
    first: statement({
      name: `${variant}_first`,
      params: { tenantId: text, take: int },
      sql: (p) => sql`SELECT ${ACCOUNT} FROM accounts WHERE ${where(p)} ${order} LIMIT ${p.take}`,
      row: rowOf<AccountRow>(),
    }),
    after: statement({
      name: `${variant}_after`,
      params: { tenantId: text, take: int, createdAt: timestamptz, id: text },
      sql: (p) =>
        sql`SELECT ${ACCOUNT} FROM accounts WHERE ${where(p)} AND ${keysetAfter(p)} ${order} LIMIT ${p.take}`,
      row: rowOf<AccountRow>(),
    }),
  };
}

const LIST = { all: listStatements(false), empty: listStatements(true) };

/** One keyset page of a tenant's accounts, newest first; `emptyOnly` keeps those without persons. */
export function listAccounts(
  db: Handle,
  tenantId: string,
  options: { take: number; emptyOnly: boolean; after: KeysetPosition | undefined },
): Promise<AccountRow[]> {
  const { take, after } = options;
  const statements = options.emptyOnly ? LIST.empty : LIST.all;
  return after
    ? db.all(statements.after, { tenantId, take, createdAt: after.createdAt, id: after.id })
    : db.all(statements.first, { tenantId, take });
}

const ACCOUNT_PREFIX = 'account.';
const PERSON_PREFIX = 'person.';

const withLinked = statement({
  name: 'account_with_linked',
  params: { tenantId: text, accountId: text },
  sql: (p) => sql`SELECT ${columns(accounts, { alias: 'a', prefix: ACCOUNT_PREFIX })},
    ${columns(persons, { alias: 'p', prefix: PERSON_PREFIX })}
  FROM accounts a LEFT JOIN persons p ON p.tenant_id = a.tenant_id AND p.account_id = a.id
  WHERE a.tenant_id = ${p.tenantId} AND a.id = ${p.accountId}
  ORDER BY p.created_at, p.id`,
});

/**
 * A tenant's account with its linked persons (oldest first) in one statement, one round trip:
 * `getAccount` made two, one after the other, and each is a chance to wait for a busy core.
 */
export async function findAccountWithLinked(
  db: Handle,
  tenantId: string,
  accountId: string,
): Promise<{ account: AccountRow; linked: PersonRow[] } | undefined> {
  const rows = await db.all(withLinked, { tenantId, accountId });
  const account = rows[0] && joined<AccountRow>(rows[0], ACCOUNT_PREFIX);
  if (!account) return undefined;
  const linked: PersonRow[] = [];
  for (const row of rows) {
    const person = joined<PersonRow>(row, PERSON_PREFIX);
    if (person) linked.push(person);
  }
  return { account, linked };
}

const insertMany = statement({
  name: 'accounts_insert_many',
  params: {
    ids: textArray,
    tenantId: text,
    domains: textArray,
    names: textArray,
    createdAts: timestamptzArray,
    updatedAts: timestamptzArray,
  },
  sql: (p) => sql`INSERT INTO accounts (id, tenant_id, domain, name, created_at, updated_at)
    SELECT r.id, ${p.tenantId}::text, r.domain, r.name, r.created_at, r.updated_at
    FROM unnest(${p.ids}::text[], ${p.domains}::text[], ${p.names}::text[],
      ${p.createdAts}::timestamptz[], ${p.updatedAts}::timestamptz[]) AS r (id, domain, name, created_at, updated_at)
    ON CONFLICT (tenant_id, domain) DO NOTHING`,
});

/**
 * Inserts many of a tenant's accounts in one statement, skipping domains the tenant already has;
 * returns how many were inserted (bulk seeding: the caller adjusts the counters by that number).
 * The rows go as one array per column and the tenant as one value, so the statement's text is the
 * same for any number of rows and it writes to the tenant's shard only.
 */
export async function insertAccounts(
  db: Handle,
  tenantId: string,
  rows: readonly Omit<NewAccount, 'tenantId'>[],
): Promise<number> {
  if (rows.length === 0) return 0;
  return db.run(insertMany, {
    ids: rows.map((row) => row.id),
    tenantId,
    domains: rows.map((row) => row.domain),
    // textArray sends its elements as they are: a null element is a NULL name.
    names: rows.map((row) => row.name),
    createdAts: rows.map((row) => row.createdAt),
    updatedAts: rows.map((row) => row.updatedAt),
  });
}
