import type { Handle } from '../../db/port.js';
import { topicEntries, topics } from '../../db/schema/index.js';
import {
  bool,
  columns,
  insertValues,
  int,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../../db/sql.js';

/** A stored topic. */
export type TopicRow = typeof topics.$inferSelect;
/** A stored topic entry. */
export type TopicEntryRow = typeof topicEntries.$inferSelect;

/** Position of the last topic of a page in `(sort_order, id)` order. */
export interface TopicPosition {
  sortOrder: number;
  id: string;
}

const TOPIC = columns(topics);

const TOPIC_VALUES = {
  id: text,
  tenantId: text,
  title: text,
  purpose: nullable(text),
  sortOrder: int,
  isDefault: bool,
  createdAt: timestamptz,
  updatedAt: timestamptz,
};

const insert = statement({
  name: 'topic_insert',
  params: TOPIC_VALUES,
  sql: (p) => sql`INSERT INTO topics ${insertValues(topics, p)} RETURNING ${TOPIC}`,
  row: rowOf<TopicRow>(),
});

/** Inserts a topic. */
export async function insertTopic(db: Handle, row: TopicRow): Promise<TopicRow> {
  const inserted = await db.first(insert, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const insertDefault = statement({
  name: 'topic_insert_default',
  params: TOPIC_VALUES,
  sql: (p) => sql`INSERT INTO topics ${insertValues(topics, p)}
    ON CONFLICT (tenant_id) WHERE is_default DO NOTHING RETURNING id`,
  row: rowOf<{ id: string }>(),
});

/** Inserts the tenant's default topic unless it has one; true when this call inserted it. */
export async function insertDefaultTopicIfMissing(
  db: Handle,
  row: Omit<TopicRow, 'isDefault'>,
): Promise<boolean> {
  return (await db.first(insertDefault, { ...row, isDefault: true })) !== undefined;
}

const defaultTopic = statement({
  name: 'topic_default_id',
  params: { tenantId: text },
  sql: (p) => sql`SELECT id FROM topics WHERE tenant_id = ${p.tenantId} AND is_default = true`,
  row: rowOf<{ id: string }>(),
});

/** True when the tenant has its default topic. */
export async function hasDefaultTopic(db: Handle, tenantId: string): Promise<boolean> {
  return (await db.first(defaultTopic, { tenantId })) !== undefined;
}

const byId = statement({
  name: 'topic_by_id',
  params: { tenantId: text, topicId: text },
  sql: (p) => sql`SELECT ${TOPIC} FROM topics WHERE tenant_id = ${p.tenantId} AND id = ${p.topicId}`,
  row: rowOf<TopicRow>(),
});

const byIdLocked = statement({
  name: 'topic_by_id_locked',
  params: { tenantId: text, topicId: text },
  sql: (p) =>
    sql`SELECT ${TOPIC} FROM topics WHERE tenant_id = ${p.tenantId} AND id = ${p.topicId} FOR UPDATE`,
  row: rowOf<TopicRow>(),
});

/** Finds a tenant's topic; `forUpdate` locks it. */
export function findTopic(
  db: Handle,
  tenantId: string,
  topicId: string,
  forUpdate = false,
): Promise<TopicRow | undefined> {
  return db.first(forUpdate ? byIdLocked : byId, { tenantId, topicId });
}

const IN_ORDER = sql`ORDER BY sort_order ASC, id ASC`;

const listFirst = statement({
  name: 'topics_list_first',
  params: { tenantId: text, take: int },
  sql: (p) => sql`SELECT ${TOPIC} FROM topics WHERE tenant_id = ${p.tenantId} ${IN_ORDER} LIMIT ${p.take}`,
  row: rowOf<TopicRow>(),
});

const listAfter = statement({
  name: 'topics_list_after',
  params: { tenantId: text, take: int, sortOrder: int, id: text },
  sql: (p) => sql`SELECT ${TOPIC} FROM topics WHERE tenant_id = ${p.tenantId}
    AND (sort_order, id) > (${p.sortOrder}, ${p.id}) ${IN_ORDER} LIMIT ${p.take}`,
  row: rowOf<TopicRow>(),
});

/** One keyset page of a tenant's topics in `(sortOrder, id)` order. */
export function listTopics(
  db: Handle,
  tenantId: string,
  take: number,
  after: TopicPosition | undefined,
): Promise<TopicRow[]> {
  return after
    ? db.all(listAfter, { tenantId, take, sortOrder: after.sortOrder, id: after.id })
    : db.all(listFirst, { tenantId, take });
}

/** The changes of a topic update: absent fields keep their value (`purpose: null` clears it). */
export interface TopicPatch {
  title?: string;
  purpose?: string | null;
  sortOrder?: number;
  updatedAt: Date;
}

/** One statement for every combination of changed fields: `setPurpose` tells a clear from no change. */
const update = statement({
  name: 'topic_update',
  params: {
    tenantId: text,
    topicId: text,
    title: nullable(text),
    sortOrder: nullable(int),
    setPurpose: bool,
    purpose: nullable(text),
    updatedAt: timestamptz,
  },
  sql: (p) => sql`UPDATE topics SET title = coalesce(${p.title}::text, title),
    sort_order = coalesce(${p.sortOrder}::bigint, sort_order),
    purpose = CASE WHEN ${p.setPurpose}::boolean THEN ${p.purpose}::text ELSE purpose END,
    updated_at = ${p.updatedAt}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.topicId} RETURNING ${TOPIC}`,
  row: rowOf<TopicRow>(),
});

/** Updates a tenant's topic and returns it. */
export async function updateTopic(
  db: Handle,
  tenantId: string,
  topicId: string,
  patch: TopicPatch,
): Promise<TopicRow> {
  const row = await db.first(update, {
    tenantId,
    topicId,
    title: patch.title,
    sortOrder: patch.sortOrder,
    setPurpose: patch.purpose !== undefined,
    purpose: patch.purpose,
    updatedAt: patch.updatedAt,
  });
  if (!row) throw new Error(`topic ${topicId} vanished during update`);
  return row;
}

const entries = statement({
  name: 'topic_entries_of_topics',
  params: { tenantId: text, topicIds: textArray },
  sql: (p) => sql`SELECT ${columns(topicEntries)} FROM topic_entries
    WHERE tenant_id = ${p.tenantId} AND topic_id = ANY(${p.topicIds})
    ORDER BY topic_id ASC, sort_order ASC, id ASC`,
  row: rowOf<TopicEntryRow>(),
});

/** The entries of some topics, in `(sortOrder, id)` order. */
export async function listEntries(
  db: Handle,
  tenantId: string,
  topicIds: string[],
): Promise<TopicEntryRow[]> {
  if (topicIds.length === 0) return [];
  return db.all(entries, { tenantId, topicIds });
}
