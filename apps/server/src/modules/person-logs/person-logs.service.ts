import type { AccountActivityItem, CreatePersonLogBodySchema, PersonLog } from '@customer-api/contract';
import type { z } from 'zod';
import { iso } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import type { AccountsDeps } from '../accounts/accounts.service.js';
import { deleteLog, recordPersonActivity } from '../accounts/activity.service.js';
import { findPersonById } from '../persons/persons.service.js';

/**
 * Records a person log. It becomes an item of the activity of the person's account, shown with
 * `includePersonActivity=true`. It does not move the account's `latestActivityAt`, which tracks
 * the account's own logs (the default activity view).
 */
export async function createPersonLog(
  deps: AccountsDeps,
  tenantId: string,
  body: z.output<typeof CreatePersonLogBodySchema>,
): Promise<PersonLog> {
  const person = await findPersonById(deps.db, tenantId, body.personId);
  if (!person) throw new NotFoundError(`Person ${body.personId} not found.`);
  const row = await deps.db.transaction((tx) =>
    recordPersonActivity(tx, deps, {
      tenantId,
      accountId: person.accountId,
      personId: person.id,
      source: body.source,
      type: body.type,
      payload: body.payload,
    }),
  );
  return {
    personLogId: row.logId,
    personId: person.id,
    accountId: row.accountId,
    source: row.source,
    type: row.type,
    createdAt: iso(row.createdAt),
  };
}

/**
 * Soft-deletes a person log (it stays in its account's activity with `includeDeleted=true`).
 * Deleting it again changes nothing and returns the same item.
 */
export async function deletePersonLog(
  deps: Pick<AccountsDeps, 'db' | 'clock'>,
  tenantId: string,
  personLogId: string,
): Promise<AccountActivityItem> {
  return deleteLog(deps, tenantId, 'person', personLogId);
}
