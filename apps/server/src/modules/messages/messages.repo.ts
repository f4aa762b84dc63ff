import type { Handle } from '../../db/port.js';
import { conversations, type messageChanges, messages } from '../../db/schema/index.js';
import {
  assignments,
  bool,
  columns,
  insertValues,
  int,
  json,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  timestamptz,
} from '../../db/sql.js';

/** A stored conversation. */
export type ConversationRow = typeof conversations.$inferSelect;
/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;
/** A stored change. */
export type ChangeRow = typeof messageChanges.$inferSelect;

const CONVERSATION = columns(conversations);

const conversationByAudience = statement({
  name: 'conversation_by_audience',
  params: { tenantId: text, audienceId: text },
  sql: (p) =>
    sql`SELECT ${CONVERSATION} FROM conversations WHERE tenant_id = ${p.tenantId} AND audience_id = ${p.audienceId}`,
  row: rowOf<ConversationRow>(),
});

/** The conversation of an audience, if it has one. */
export function findConversation(
  db: Handle,
  tenantId: string,
  audienceId: string,
): Promise<ConversationRow | undefined> {
  return db.first(conversationByAudience, { tenantId, audienceId });
}

const insertConversationStatement = statement({
  name: 'conversation_insert',
  params: {
    id: text,
    tenantId: text,
    audienceId: text,
    publishedMessageId: nullable(text),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO conversations ${insertValues(conversations, p)} RETURNING ${CONVERSATION}`,
  row: rowOf<ConversationRow>(),
});

/** Inserts a conversation. */
export async function insertConversation(db: Handle, row: ConversationRow): Promise<ConversationRow> {
  const inserted = await db.first(insertConversationStatement, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const touch = statement({
  name: 'conversation_touch',
  params: { tenantId: text, conversationId: text, updatedAt: timestamptz },
  sql: (p) => sql`UPDATE conversations SET updated_at = ${p.updatedAt}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.conversationId} RETURNING ${CONVERSATION}`,
  row: rowOf<ConversationRow>(),
});

/** Marks a tenant's conversation as updated. */
export async function touchConversation(
  db: Handle,
  tenantId: string,
  conversationId: string,
  at: Date,
): Promise<ConversationRow> {
  const row = await db.first(touch, { tenantId, conversationId, updatedAt: at });
  if (!row) throw new Error(`conversation ${conversationId} vanished`);
  return row;
}

const lastSeqStatement = statement({
  name: 'messages_last_seq',
  params: { tenantId: text, conversationId: text },
  sql: (p) => sql`SELECT max(seq) AS "seq" FROM messages
    WHERE tenant_id = ${p.tenantId} AND conversation_id = ${p.conversationId}`,
  row: rowOf<{ seq: number | null }>(),
});

/** Highest message sequence number of a tenant's conversation (0 when empty). */
export async function lastSeq(db: Handle, tenantId: string, conversationId: string): Promise<number> {
  return (await db.first(lastSeqStatement, { tenantId, conversationId }))?.seq ?? 0;
}

const insertMessageStatement = statement({
  name: 'message_insert',
  params: {
    id: text,
    tenantId: text,
    conversationId: text,
    audienceId: text,
    seq: int,
    role: text,
    content: text,
    timestampMs: int,
    toolCalls: nullable(json),
    contentParts: nullable(json),
    reasoning: nullable(text),
    isInterrupted: bool,
    snapshot: nullable(json),
    jsonBytes: nullable(int),
    createdAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO messages ${insertValues(messages, p)}`,
});

/**
 * A message's changes in one statement whatever their number: the rows as one JSON array, read
 * back as records (a change's values may be null, which a `text[]` parameter could not carry).
 * The tenant, the same for every change of a message, is one value.
 */
const insertChanges = statement({
  name: 'message_changes_insert',
  params: { tenantId: text, changes: json },
  sql: (p) => sql`INSERT INTO message_changes
      (id, tenant_id, message_id, audience_id, message_seq, position, field, previous_value, new_value, status)
    SELECT c.id, ${p.tenantId}::text, c."messageId", c."audienceId", c."messageSeq", c.position, c.field,
      c."previousValue", c."newValue", c.status
    FROM json_to_recordset(${p.changes}::json) AS c(id text, "messageId" text,
      "audienceId" text, "messageSeq" int4, position int4, field text, "previousValue" text,
      "newValue" text, status text)`,
});

/** Inserts a message with its changes (the message's tenant's). */
export async function insertMessage(db: Handle, row: MessageRow, changes: ChangeRow[]): Promise<void> {
  await db.run(insertMessageStatement, row);
  if (changes.length > 0) await db.run(insertChanges, { tenantId: row.tenantId, changes });
}

const messageById = statement({
  name: 'message_by_id',
  params: { tenantId: text, audienceId: text, messageId: text },
  sql: (p) => sql`SELECT ${columns(messages)} FROM messages
    WHERE tenant_id = ${p.tenantId} AND audience_id = ${p.audienceId} AND id = ${p.messageId}`,
  row: rowOf<MessageRow>(),
});

/** Finds a message of a tenant's audience. */
export function findMessage(
  db: Handle,
  tenantId: string,
  audienceId: string,
  messageId: string,
): Promise<MessageRow | undefined> {
  return db.first(messageById, { tenantId, audienceId, messageId });
}

const revertAfter = statement({
  name: 'message_changes_revert_after',
  params: { tenantId: text, audienceId: text, seq: int },
  sql: (p) => sql`UPDATE message_changes SET status = 'reverted'
    WHERE tenant_id = ${p.tenantId} AND audience_id = ${p.audienceId} AND message_seq > ${p.seq}
    AND status = 'applied'`,
});

/** Marks applied changes of a tenant's audience's messages after `seq` as reverted. */
export async function revertChangesAfter(
  db: Handle,
  tenantId: string,
  audienceId: string,
  seq: number,
): Promise<void> {
  await db.run(revertAfter, { tenantId, audienceId, seq });
}

const setPublished = statement({
  name: 'conversation_set_published_message',
  params: { tenantId: text, conversationId: text, messageId: text, updatedAt: timestamptz },
  sql: (p) =>
    sql`UPDATE conversations SET ${assignments(conversations, {
      publishedMessageId: p.messageId,
      updatedAt: p.updatedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.conversationId}`,
});

/** Sets a tenant's conversation's published message. */
export async function setPublishedMessage(
  db: Handle,
  tenantId: string,
  conversationId: string,
  messageId: string,
  at: Date,
): Promise<void> {
  await db.run(setPublished, { tenantId, conversationId, messageId, updatedAt: at });
}
