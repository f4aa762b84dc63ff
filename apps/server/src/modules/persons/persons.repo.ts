import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
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

/** Finds a tenant's person by id. */
export async function findPerson(db: Db, tenantId: string, personId: string): Promise<PersonRow | undefined> {
  const rows = await db
    .select()
    .from(persons)
    .where(and(eq(persons.tenantId, tenantId), eq(persons.id, personId)));
  return rows[0];
}
