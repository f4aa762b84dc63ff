import type { AccountActivityItem, AccountLog, CreateAccountLogBodySchema } from '@customer-api/contract';
import type { z } from 'zod';
import { iso } from '../../lib/clock.js';
import { canonicalDomain } from '../../lib/domain.js';
import { ConflictError } from '../../lib/errors.js';
import { KeyTaken } from '../../lib/key-taken.js';
import { requestHash } from '../../lib/request-hash.js';
import * as countersRepo from './account-counters.repo.js';
import {
  type AccountsDeps,
  accountForDomain,
  countAccountChanges,
  requireAccount,
  requireCanonicalDomain,
} from './accounts.service.js';
import * as repo from './activity.repo.js';
import { deleteLog } from './activity.service.js';

/** Parsed body of `createAccountLog` (`type` defaulted). */
export type CreateAccountLogInput = z.output<typeof CreateAccountLogBodySchema>;

/** The entry and whether this request created it (201) or replayed an earlier one (200). */
export interface AccountLogResult {
  created: boolean;
  log: AccountLog;
}

function toAccountLog(row: repo.ActivityRow): AccountLog {
  return {
    accountLogId: row.logId,
    accountId: row.accountId,
    source: row.source,
    type: row.type,
    createdAt: iso(row.createdAt),
  };
}

/**
 * What makes two requests "the same body" for idempotency: everything but the key itself, the
 * domain in its canonical form (`Example.com` and `example.com` name one account).
 */
function hashOf(body: CreateAccountLogInput): string {
  const { idempotencyKey: _key, ...rest } = body;
  return requestHash({ ...rest, domain: rest.domain && (canonicalDomain(rest.domain) ?? rest.domain) });
}

/** The earlier entry of a key: returned when the body matches, 409 CONFLICT when it does not. */
function replay(existing: repo.ActivityRow, body: CreateAccountLogInput, key: string): AccountLogResult {
  if (existing.requestHash !== hashOf(body)) {
    throw new ConflictError(
      `The idempotency key ${JSON.stringify(key)} was already used with a different request body; ` +
        'use a new key for a different log entry.',
    );
  }
  return { created: false, log: toAccountLog(existing) };
}

/**
 * Inserts the log in one transaction: resolves (or creates) the account, inserts the activity item
 * and updates the account. Throws {@link KeyTaken}, rolling everything back, when the tenant's
 * unique index already holds the idempotency key.
 */
async function insertAccountLog(
  deps: AccountsDeps,
  tenantId: string,
  body: CreateAccountLogInput,
  resolved: { domain: string | undefined; hash: string },
): Promise<repo.ActivityRow> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const { account, created } = body.accountId
      ? { account: await requireAccount(tx, tenantId, body.accountId), created: false }
      : await accountForDomain(deps, tx, tenantId, resolved.domain as string, now);
    const key = body.idempotencyKey ?? null;
    const inserted = await repo.insertActivity(tx, {
      id: deps.ids('activity'),
      tenantId,
      accountId: account.id,
      kind: 'account',
      logId: deps.ids('accountlog'),
      personId: null,
      source: body.source,
      type: body.type,
      payload: body.payload,
      idempotencyKey: key,
      requestHash: key === null ? null : resolved.hash,
      createdAt: now,
      updatedAt: now,
    });
    if (!inserted) throw new KeyTaken();
    await countersRepo.recordAccountLog(tx, tenantId, account.id, { name: body.name, at: now });
    await countAccountChanges(tx, tenantId, { created, linkedFirstPerson: false });
    return inserted;
  });
}

/**
 * Records an account log. The account is `accountId` (unknown or another tenant's: 404) or the
 * account of the canonical `domain`, created when new; `name` renames it. The log becomes an
 * activity item and moves the account's `latestActivityAt`.
 *
 * Idempotency: the insert skips when the tenant's unique index already holds the key, and the
 * transaction (account creation and rename included) is rolled back; the request then answers
 * with the committed winner. So any number of concurrent requests with one key create one entry.
 * The read before the transaction only saves work on plain retries; it decides nothing.
 */
export async function createAccountLog(
  deps: AccountsDeps,
  tenantId: string,
  body: CreateAccountLogInput,
): Promise<AccountLogResult> {
  const key = body.idempotencyKey;
  const hash = hashOf(body);
  if (key) {
    const existing = await repo.findByIdempotencyKey(deps.db, tenantId, key);
    if (existing) return replay(existing, body, key);
  }
  const domain = body.accountId ? undefined : requireCanonicalDomain(body.domain ?? '', 'domain');
  try {
    return {
      created: true,
      log: toAccountLog(await insertAccountLog(deps, tenantId, body, { domain, hash })),
    };
  } catch (err) {
    if (!(err instanceof KeyTaken) || !key) throw err;
    const winner = await repo.findByIdempotencyKey(deps.db, tenantId, key);
    if (!winner) throw new Error(`idempotency key ${key} vanished after a conflict`);
    return replay(winner, body, key);
  }
}

/**
 * Soft-deletes an account log: it then shows only with `includeDeleted=true`, and the account's
 * counters stay exact. Deleting it again changes nothing and returns the same item.
 */
export async function deleteAccountLog(
  deps: Pick<AccountsDeps, 'db' | 'clock'>,
  tenantId: string,
  accountLogId: string,
): Promise<AccountActivityItem> {
  return deleteLog(deps, tenantId, 'account', accountLogId);
}
