import { isUniqueViolation } from '../../db/errors.js';
import type { Handle } from '../../db/port.js';
import { persons } from '../../db/schema/index.js';
import { columns, insertValues, nullable, rowOf, sql, statement, text, timestamptz } from '../../db/sql.js';
import { ConflictError } from '../../lib/errors.js';

/** A stored person. */
export type PersonRow = typeof persons.$inferSelect;

const PERSON = columns(persons);

const insert = statement({
  name: 'person_insert',
  params: {
    id: text,
    tenantId: text,
    accountId: text,
    name: text,
    email: text,
    domain: text,
    slug: text,
    phoneNumber: nullable(text),
    linkedinProfileUrl: nullable(text),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO persons ${insertValues(persons, p)} RETURNING ${PERSON}`,
  row: rowOf<PersonRow>(),
});

/** Inserts a person; an email the tenant already has (any letter case) is 409 CONFLICT. */
export async function insertPerson(db: Handle, row: PersonRow): Promise<PersonRow> {
  try {
    const inserted = await db.first(insert, row);
    if (!inserted) throw new Error('insert returned no row');
    return inserted;
  } catch (err) {
    if (!isUniqueViolation(err, 'persons_tenant_email_key')) throw err;
    throw new ConflictError(`A person with the email ${JSON.stringify(row.email)} already exists.`, {
      cause: err,
    });
  }
}

const byId = statement({
  name: 'person_by_id',
  params: { tenantId: text, personId: text },
  sql: (p) => sql`SELECT ${PERSON} FROM persons WHERE tenant_id = ${p.tenantId} AND id = ${p.personId}`,
  row: rowOf<PersonRow>(),
});

/** Finds a tenant's person by id. */
export function findPerson(db: Handle, tenantId: string, personId: string): Promise<PersonRow | undefined> {
  return db.first(byId, { tenantId, personId });
}
