import type {
  Account,
  AccountListItem,
  LinkedPerson,
  ListAccountsQuerySchema,
  Paginated,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle, Tx } from '../../db/port.js';
import { type Clock, iso, isoOrNull } from '../../lib/clock.js';
import { adjustCounter, readCounter } from '../../lib/counters.js';
import { canonicalDomain } from '../../lib/domain.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import { type CursorCodec, keysetPage } from '../../lib/pagination.js';
import * as countersRepo from './account-counters.repo.js';
import * as repo from './accounts.repo.js';

/** Dependencies of account operations. */
export interface AccountsDeps {
  /** The request's handle (a transaction's when the request runs in one). */
  db: Handle;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
}

/** Counter scope of a tenant's accounts (listAccounts' totalCount). */
export const ACCOUNTS_COUNTER = 'accounts';
/** Counter scope of a tenant's accounts without linked persons (includeEmptyOnly=true). */
export const EMPTY_ACCOUNTS_COUNTER = 'accounts:empty';

/** Maps a stored person to the specification's LinkedPerson (absent optional fields omitted). */
export function toLinkedPerson(row: repo.PersonRow): LinkedPerson {
  return {
    personId: row.id,
    name: row.name,
    email: row.email,
    domain: row.domain,
    slug: row.slug,
    ...(row.phoneNumber === null ? {} : { phoneNumber: row.phoneNumber }),
    ...(row.linkedinProfileUrl === null ? {} : { linkedinProfileUrl: row.linkedinProfileUrl }),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

function accountFields(row: repo.AccountRow) {
  return {
    accountId: row.id,
    domain: row.domain,
    name: row.name,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    latestActivityAt: isoOrNull(row.latestActivityAt),
  };
}

/** Loads a tenant's account or throws 404 (another tenant's account is "not found"). */
export async function requireAccount(
  db: Handle,
  tenantId: string,
  accountId: string,
): Promise<repo.AccountRow> {
  const row = await repo.findAccount(db, tenantId, accountId);
  if (!row) throw accountNotFound(accountId);
  return row;
}

const accountNotFound = (accountId: string) => new NotFoundError(`Account ${accountId} not found.`);

/**
 * The canonical form of a domain given in a request body, or 400 naming the field.
 * `field` is the body member the domain came from (`domain`, or `email` for persons).
 */
export function requireCanonicalDomain(input: string, field: string): string {
  const domain = canonicalDomain(input);
  if (!domain) {
    throw ValidationError.of(
      'body',
      `${field} ${JSON.stringify(input.slice(0, 100))} does not contain a valid domain name.`,
      [field],
    );
  }
  return domain;
}

/**
 * Returns the tenant's account of a canonical domain, creating it when new. Call inside the
 * transaction that uses it, and pass `created` to {@link countAccountChanges} at its end.
 */
export async function accountForDomain(
  deps: Pick<AccountsDeps, 'ids'>,
  tx: Tx,
  tenantId: string,
  domain: string,
  now: Date,
): Promise<{ account: repo.AccountRow; created: boolean }> {
  return repo.insertAccountOrGet(tx, {
    id: deps.ids('account'),
    tenantId,
    domain,
    name: null,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Keeps the tenant counters exact: a new account adds to `accounts` and (while it has no
 * persons) to `accounts:empty`; `linkedFirstPerson` moves it out of the empty ones. Call last in
 * the transaction: the counter row stays locked until commit.
 */
export async function countAccountChanges(
  tx: Tx,
  tenantId: string,
  change: { created: boolean; linkedFirstPerson: boolean },
): Promise<void> {
  if (change.created) await adjustCounter(tx, tenantId, ACCOUNTS_COUNTER, 1);
  const emptyDelta = (change.created ? 1 : 0) - (change.linkedFirstPerson ? 1 : 0);
  if (emptyDelta !== 0) await adjustCounter(tx, tenantId, EMPTY_ACCOUNTS_COUNTER, emptyDelta);
}

/** Lists a tenant's accounts, newest first, with `linkedPersonsCount`. */
export async function listAccounts(
  deps: AccountsDeps,
  tenantId: string,
  query: z.output<typeof ListAccountsQuerySchema>,
): Promise<Paginated<AccountListItem>> {
  const emptyOnly = query.includeEmptyOnly ?? false;
  return keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listAccounts', filters: { emptyOnly } },
    query,
    fetch: (take, after) => repo.listAccounts(deps.db, tenantId, { take, emptyOnly, after }),
    count: () => readCounter(deps.db, tenantId, emptyOnly ? EMPTY_ACCOUNTS_COUNTER : ACCOUNTS_COUNTER),
    map: (r) => ({ ...accountFields(r), linkedPersonsCount: r.linkedPersonsCount }),
  });
}

/** Reads one account with its linked persons (oldest first). */
export async function getAccount(deps: AccountsDeps, tenantId: string, accountId: string): Promise<Account> {
  const found = await repo.findAccountWithLinked(deps.db, tenantId, accountId);
  if (!found) throw accountNotFound(accountId);
  return { ...accountFields(found.account), linkedPersons: found.linked.map(toLinkedPerson) };
}

/**
 * Counts a person newly linked to an account, in the transaction that creates the person; resolves
 * to the account's number of linked persons, this one included.
 */
export function linkPersonToAccount(tx: Tx, tenantId: string, accountId: string, at: Date): Promise<number> {
  return countersRepo.linkPerson(tx, tenantId, accountId, at);
}

/** Inserts many accounts of one tenant in one statement (bulk seeding); returns how many it inserted. */
export function insertAccountsInBulk(
  db: Handle,
  tenantId: string,
  rows: Parameters<typeof repo.insertAccounts>[2],
): Promise<number> {
  return repo.insertAccounts(db, tenantId, rows);
}
