import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { rowQuery, selectList } from '../../db/fast.js';
import { persons } from '../../db/schema/index.js';
import { ConflictError } from '../../lib/errors.js';

/** A stored person. */
export type PersonRow = typeof persons.$inferSelect;

/** Inserts a person; an email the tenant already has (any letter case) is 409 CONFLICT. */
export async function insertPerson(db: Db, row: typeof persons.$inferInsert): Promise<PersonRow> {
  try {
    const [inserted] = await db.insert(persons).values(row).returning();
    if (!inserted) throw new Error('insert returned no row');
    return inserted;
  } catch (err) {
    if (!isUniqueViolation(err, 'persons_tenant_email_key')) throw err;
    throw new ConflictError(`A person with the email ${JSON.stringify(row.email)} already exists.`, {
      cause: err,
    });
  }
}

const PERSON_BY_ID = `SELECT ${selectList(persons)} FROM persons WHERE tenant_id = $1 AND id = $2`;

/** Finds a tenant's person by id. */
export async function findPerson(db: Db, tenantId: string, personId: string): Promise<PersonRow | undefined> {
  return (await rowQuery(db)<PersonRow>('person_by_id', PERSON_BY_ID, [tenantId, personId]))[0];
}
