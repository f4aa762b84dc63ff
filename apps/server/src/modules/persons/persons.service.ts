import type { CreatePersonBodySchema, Person } from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle } from '../../db/port.js';
import { emailDomain } from '../../lib/domain.js';
import { ValidationError } from '../../lib/errors.js';
import {
  type AccountsDeps,
  accountForDomain,
  countAccountChanges,
  linkPersonToAccount,
  toLinkedPerson,
} from '../accounts/accounts.service.js';
import * as repo from './persons.repo.js';
import { personSlug } from './slug.js';

/** Maps a stored person to the API shape. */
export function toApiPerson(row: repo.PersonRow): Person {
  return { ...toLinkedPerson(row), accountId: row.accountId };
}

/**
 * Creates a person linked to the account of its email's canonical domain (created when new).
 * The slug defaults to one made from the name. An email the tenant already has is 409.
 */
export async function createPerson(
  deps: AccountsDeps,
  tenantId: string,
  body: z.output<typeof CreatePersonBodySchema>,
): Promise<Person> {
  const domain = emailDomain(body.email);
  if (!domain) {
    throw ValidationError.of('body', 'The email address has no valid domain name.', ['email']);
  }
  const row = await deps.db.transaction(async (tx) => {
    const now = deps.clock();
    const { account, created } = await accountForDomain(deps, tx, tenantId, domain, now);
    const person = await repo.insertPerson(tx, {
      id: deps.ids('person'),
      tenantId,
      accountId: account.id,
      name: body.name,
      email: body.email,
      domain,
      slug: body.slug ?? personSlug(body.name, body.email),
      phoneNumber: body.phoneNumber ?? null,
      linkedinProfileUrl: body.linkedinProfileUrl ?? null,
      createdAt: now,
      updatedAt: now,
    });
    const linkedPersons = await linkPersonToAccount(tx, tenantId, account.id, now);
    await countAccountChanges(tx, tenantId, { created, linkedFirstPerson: linkedPersons === 1 });
    return person;
  });
  return toApiPerson(row);
}

/** A tenant's person by id (undefined: none), for the modules that attach things to a person. */
export function findPersonById(
  db: Handle,
  tenantId: string,
  personId: string,
): Promise<repo.PersonRow | undefined> {
  return repo.findPerson(db, tenantId, personId);
}
