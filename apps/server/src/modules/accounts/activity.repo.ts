import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowQuery, selectList } from '../../db/fast.js';
import { accountActivity, persons } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored activity item (an account log or a person log). */
export type ActivityRow = typeof accountActivity.$inferSelect;
/** An activity item with the name of its person (person logs only). */
export type ActivityWithPerson = ActivityRow & { personName: string | null };

/**
 * Inserts an activity item. With an idempotency key already taken in the tenant, nothing is
 * inserted and `undefined` is returned: the unique index decides, so of any number of
 * concurrent requests with one key exactly one inserts (the others wait for it, then skip).
 */
export async function insertActivity(
  db: Db,
  row: typeof accountActivity.$inferInsert,
): Promise<ActivityRow | undefined> {
  const [inserted] = await db
    .insert(accountActivity)
    .values(row)
    .onConflictDoNothing({ target: [accountActivity.tenantId, accountActivity.idempotencyKey] })
    .returning();
  return inserted;
}

const BY_IDEMPOTENCY_KEY = `SELECT ${selectList(accountActivity)} FROM account_activity
  WHERE tenant_id = $1 AND idempotency_key = $2`;

/** The activity item that holds a tenant's idempotency key. */
export async function findByIdempotencyKey(
  db: Db,
  tenantId: string,
  idempotencyKey: string,
): Promise<ActivityRow | undefined> {
  // Every account log with a key asks this first: a fixed prepared statement (see rowQuery).
  const [row] = await rowQuery(db)<ActivityRow>('activity_by_idempotency_key', BY_IDEMPOTENCY_KEY, [
    tenantId,
    idempotencyKey,
  ]);
  return row;
}

/** Finds a tenant's activity item by id. */
export async function findActivity(
  db: Db,
  tenantId: string,
  activityId: string,
): Promise<ActivityRow | undefined> {
  const rows = await db
    .select()
    .from(accountActivity)
    .where(and(eq(accountActivity.tenantId, tenantId), eq(accountActivity.id, activityId)))
    .for('update');
  return rows[0];
}

/** Filters of {@link listActivity}. */
export interface ActivityFilter {
  tenantId: string;
  accountId: string;
  includePersonActivity: boolean;
  includeDeleted: boolean;
}

/** One keyset page of an account's activity, newest first, with person names. */
export async function listActivity(
  db: Db,
  filter: ActivityFilter,
  take: number,
  after: KeysetPosition | undefined,
): Promise<ActivityWithPerson[]> {
  const a = accountActivity;
  return db
    .select({ activity: a, personName: persons.name })
    .from(a)
    .leftJoin(persons, eq(persons.id, a.personId))
    .where(
      and(
        eq(a.tenantId, filter.tenantId),
        eq(a.accountId, filter.accountId),
        // Literals (not parameters) so that the partial indexes' predicates always match.
        filter.includePersonActivity ? undefined : sql`${a.kind} = 'account'`,
        filter.includeDeleted ? undefined : isNull(a.deletedAt),
        after ? keysetAfter(a.createdAt, a.id, after) : undefined,
      ),
    )
    .orderBy(desc(a.createdAt), desc(a.id))
    .limit(take)
    .then((rows) => rows.map((r) => ({ ...r.activity, personName: r.personName })));
}

/** Marks an activity item deleted. */
export async function markActivityDeleted(db: Db, activityId: string, at: Date): Promise<void> {
  await db
    .update(accountActivity)
    .set({ deletedAt: at, updatedAt: at })
    .where(eq(accountActivity.id, activityId));
}

/** A tenant's activity item of an account log or a person log, by the log's id, locked. */
export async function findActivityByLog(
  db: Db,
  tenantId: string,
  kind: 'account' | 'person',
  logId: string,
): Promise<ActivityRow | undefined> {
  const rows = await db
    .select()
    .from(accountActivity)
    .where(
      and(
        eq(accountActivity.tenantId, tenantId),
        eq(accountActivity.logId, logId),
        sql`${accountActivity.kind} = ${kind}`,
      ),
    )
    .for('update');
  return rows[0];
}

/** The name of a person, when it still exists. */
export async function personNameOf(db: Db, personId: string): Promise<string | null> {
  const [row] = await db.select({ name: persons.name }).from(persons).where(eq(persons.id, personId));
  return row?.name ?? null;
}
