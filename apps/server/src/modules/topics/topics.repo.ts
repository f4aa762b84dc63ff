import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { topicEntries, topics } from '../../db/schema/index.js';

/** A stored topic. */
export type TopicRow = typeof topics.$inferSelect;
/** A stored topic entry. */
export type TopicEntryRow = typeof topicEntries.$inferSelect;

/** Position of the last topic of a page in `(sort_order, id)` order. */
export interface TopicPosition {
  sortOrder: number;
  id: string;
}

/** Inserts a topic. */
export async function insertTopic(db: Db, row: typeof topics.$inferInsert): Promise<TopicRow> {
  const [inserted] = await db.insert(topics).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Inserts the tenant's default topic unless it has one; true when this call inserted it. */
export async function insertDefaultTopicIfMissing(db: Db, row: typeof topics.$inferInsert): Promise<boolean> {
  const inserted = await db
    .insert(topics)
    .values({ ...row, isDefault: true })
    .onConflictDoNothing({ target: topics.tenantId, where: sql`${topics.isDefault}` })
    .returning({ id: topics.id });
  return inserted.length > 0;
}

/** True when the tenant has its default topic. */
export async function hasDefaultTopic(db: Db, tenantId: string): Promise<boolean> {
  const rows = await db
    .select({ id: topics.id })
    .from(topics)
    .where(and(eq(topics.tenantId, tenantId), eq(topics.isDefault, true)));
  return rows.length > 0;
}

/** Finds a tenant's topic; `forUpdate` locks it. */
export async function findTopic(
  db: Db,
  tenantId: string,
  topicId: string,
  forUpdate = false,
): Promise<TopicRow | undefined> {
  const query = db
    .select()
    .from(topics)
    .where(and(eq(topics.tenantId, tenantId), eq(topics.id, topicId)));
  const rows = forUpdate ? await query.for('update') : await query;
  return rows[0];
}

/** One keyset page of a tenant's topics in `(sortOrder, id)` order. */
export async function listTopics(
  db: Db,
  tenantId: string,
  take: number,
  after: TopicPosition | undefined,
): Promise<TopicRow[]> {
  return db
    .select()
    .from(topics)
    .where(
      and(
        eq(topics.tenantId, tenantId),
        after ? sql`(${topics.sortOrder}, ${topics.id}) > (${after.sortOrder}, ${after.id})` : undefined,
      ),
    )
    .orderBy(asc(topics.sortOrder), asc(topics.id))
    .limit(take);
}

/** Updates a topic and returns it. */
export async function updateTopic(
  db: Db,
  topicId: string,
  patch: Partial<Pick<TopicRow, 'title' | 'purpose' | 'sortOrder' | 'updatedAt'>>,
): Promise<TopicRow> {
  const [row] = await db.update(topics).set(patch).where(eq(topics.id, topicId)).returning();
  if (!row) throw new Error(`topic ${topicId} vanished during update`);
  return row;
}

/** The entries of some topics, in `(sortOrder, id)` order. */
export async function listEntries(db: Db, tenantId: string, topicIds: string[]): Promise<TopicEntryRow[]> {
  if (topicIds.length === 0) return [];
  return db
    .select()
    .from(topicEntries)
    .where(and(eq(topicEntries.tenantId, tenantId), inArray(topicEntries.topicId, topicIds)))
    .orderBy(asc(topicEntries.topicId), asc(topicEntries.sortOrder), asc(topicEntries.id));
}
