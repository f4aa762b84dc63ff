import { and, asc, eq, getTableColumns, gt, gte, max, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type JsonValueText, jsonBytesQuery } from '../../db/fast.js';
import { conversations, messageChanges, messages } from '../../db/schema/index.js';

/** A stored conversation. */
export type ConversationRow = typeof conversations.$inferSelect;
/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;
/** A stored change. */
export type ChangeRow = typeof messageChanges.$inferSelect;

/** The conversation of an audience, if it has one. */
export async function findConversation(
  db: Db,
  tenantId: string,
  audienceId: string,
): Promise<ConversationRow | undefined> {
  const rows = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.tenantId, tenantId), eq(conversations.audienceId, audienceId)));
  return rows[0];
}

/** Inserts a conversation. */
export async function insertConversation(db: Db, row: ConversationRow): Promise<ConversationRow> {
  const [inserted] = await db.insert(conversations).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Marks a conversation as updated. */
export async function touchConversation(db: Db, conversationId: string, at: Date): Promise<ConversationRow> {
  const [row] = await db
    .update(conversations)
    .set({ updatedAt: at })
    .where(eq(conversations.id, conversationId))
    .returning();
  if (!row) throw new Error(`conversation ${conversationId} vanished`);
  return row;
}

/**
 * A message as a history read shows it: its snapshot only as whether it has one, its tool calls
 * and content parts as the JSON text stored (sent as it is, never parsed: see JsonText), as bytes
 * on PostgreSQL.
 */
export type HistoryMessageRow = Omit<MessageRow, 'snapshot' | 'jsonBytes' | 'toolCalls' | 'contentParts'> & {
  hasSnapshot: boolean;
  toolCallsJson: JsonValueText | null;
  contentPartsJson: JsonValueText | null;
};

const MESSAGES_JSON = `SELECT seq, tool_calls AS "toolCalls", content_parts AS "contentParts" FROM messages
  WHERE conversation_id = $1 AND seq BETWEEN $2 AND $3`;

/**
 * Stored size a statement of {@link listMessages} reads tool calls and content parts for, at most
 * (or one message, if larger). A 4 MiB history in one statement kept the event loop parsing for
 * about 9 ms at once, delaying every other tenant's requests; in slices, their I/O runs between.
 */
export const HISTORY_SLICE_BYTES = 256 * 1024;

/** Inclusive `[from, to]` ranges of sequence numbers, each about `sliceBytes` of stored JSON at most. */
export function historySlices(
  rows: readonly { seq: number; jsonBytes: number | null }[],
  sliceBytes = HISTORY_SLICE_BYTES,
): [number, number][] {
  const slices: [number, number][] = [];
  let from: number | undefined;
  let to = 0;
  let bytes = 0;
  for (const row of rows) {
    // A message written before sizes were stored counts as a full slice: it gets one of its own.
    const size = row.jsonBytes ?? sliceBytes;
    if (from !== undefined && bytes + size > sliceBytes) {
      slices.push([from, to]);
      from = undefined;
    }
    if (from === undefined) {
      from = row.seq;
      bytes = 0;
    }
    to = row.seq;
    bytes += size;
  }
  if (from !== undefined) slices.push([from, to]);
  return slices;
}

/**
 * Messages of a conversation from sequence number `fromSeq` on, oldest first. Snapshots (each up
 * to the audience's whole editable state, and not part of what a read sends) stay in the database.
 * Tool calls and content parts come in further statements, as bytes ({@link jsonBytesQuery}), one
 * per {@link HISTORY_SLICE_BYTES} of them: messages are never deleted and never change them, so the
 * rows of the first statement are all there, and the slices read one consistent history.
 */
export async function listMessages(
  db: Db,
  conversationId: string,
  fromSeq = 1,
): Promise<HistoryMessageRow[]> {
  const {
    snapshot: _snapshot,
    toolCalls: _toolCalls,
    contentParts: _contentParts,
    ...columns
  } = getTableColumns(messages);
  const rows = await db
    .select({ ...columns, hasSnapshot: sql<boolean>`${messages.snapshot} IS NOT NULL` })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), gte(messages.seq, fromSeq)))
    .orderBy(asc(messages.seq));
  type JsonRow = { seq: number; toolCalls: JsonValueText | null; contentParts: JsonValueText | null };
  const bySeq = new Map<number, JsonRow>();
  const query = jsonBytesQuery(db);
  for (const [from, to] of historySlices(rows)) {
    const json = await query<JsonRow>('messages_json_text', MESSAGES_JSON, [conversationId, from, to]);
    for (const row of json) bySeq.set(row.seq, row);
  }
  return rows.map(({ jsonBytes: _jsonBytes, ...row }) => {
    const stored = bySeq.get(row.seq);
    return {
      ...row,
      toolCallsJson: stored?.toolCalls ?? null,
      contentPartsJson: stored?.contentParts ?? null,
    };
  });
}

/** Changes of an audience's messages from sequence number `fromSeq` on, in message and position order. */
export async function listChanges(
  db: Db,
  tenantId: string,
  audienceId: string,
  fromSeq = 1,
): Promise<ChangeRow[]> {
  return db
    .select()
    .from(messageChanges)
    .where(
      and(
        eq(messageChanges.tenantId, tenantId),
        eq(messageChanges.audienceId, audienceId),
        gte(messageChanges.messageSeq, fromSeq),
      ),
    )
    .orderBy(asc(messageChanges.messageSeq), asc(messageChanges.position));
}

// JSON of a message without its content, reasoning, tool calls, content parts and changes (ids,
// role, timestamp, flags: about 200 bytes), and of a change without its two values (about 130).
const MESSAGE_OVERHEAD = 256;
const CHANGE_OVERHEAD = 160;

/**
 * `(seq, bytes)` of each message of a conversation: the size of the message's JSON as the history
 * read returns it, changes included, computed by the database so that Node builds no string for
 * it. Tool calls and content parts are sent as PostgreSQL prints them (see JsonText), and the rest
 * is bounded by generous overheads, so a bound on this holds on what is sent. Saved changes count twice, as
 * the read lists them again under pendingChanges. A message's size is stored when it is written
 * ({@link storeMessageBytes}; nothing changes it later), so reads sum integers: only messages
 * written before sizes were stored are measured again.
 */
function sizedMessages(conversationId: string, newest?: number) {
  return sql`
    SELECT m.seq, coalesce(m.json_bytes, ${sql.raw(String(MESSAGE_OVERHEAD))}
      + octet_length(to_json(m.content)::text)
      + coalesce(octet_length(to_json(m.reasoning)::text), 4)
      + coalesce(octet_length(m.tool_calls::text), 4)
      + coalesce(octet_length(m.content_parts::text), 4)
      + coalesce((
          SELECT sum(
            (${sql.raw(String(CHANGE_OVERHEAD))}
              + coalesce(octet_length(to_json(c.previous_value)::text), 4)
              + coalesce(octet_length(to_json(c.new_value)::text), 4))
            * CASE WHEN c.status = 'saved' THEN 2 ELSE 1 END)
          FROM ${messageChanges} c
          WHERE c.audience_id = m.audience_id AND c.message_seq = m.seq
        ), 0)) AS bytes
    FROM ${messages} m
    WHERE m.conversation_id = ${conversationId}
    ${newest === undefined ? sql`` : sql`ORDER BY m.seq DESC LIMIT ${newest}`}`;
}

/** Sizes of a conversation (see {@link sizedMessages}): all messages, and the message `seq` alone. */
export async function measureHistory(
  db: Db,
  conversationId: string,
  seq: number,
): Promise<{ totalBytes: number; messageBytes: number }> {
  // Both drivers (node-postgres, PGlite) answer `execute` with `{ rows }`; float8 keeps sums numbers.
  const res = (await db.execute(sql`
    SELECT coalesce(sum(s.bytes), 0)::float8 AS total,
      coalesce(max(s.bytes) FILTER (WHERE s.seq = ${seq}), 0)::float8 AS message
    FROM (${sizedMessages(conversationId)}) s`)) as unknown as {
    rows: Array<{ total: number; message: number }>;
  };
  const row = res.rows[0];
  return { totalBytes: Number(row?.total ?? 0), messageBytes: Number(row?.message ?? 0) };
}

/**
 * The oldest sequence number from which the conversation's newest messages, at most `count` of
 * them, fit in `bytes` (see {@link sizedMessages}), and their size; undefined when not even the
 * newest one does. Only those `count` messages are measured, however long the conversation.
 */
export async function firstSeqWithin(
  db: Db,
  conversationId: string,
  budget: { count: number; bytes: number },
): Promise<{ seq: number; bytes: number } | undefined> {
  const res = (await db.execute(sql`
    SELECT min(w.seq)::int AS first, max(w.running)::float8 AS bytes
    FROM (SELECT s.seq, sum(s.bytes) OVER (ORDER BY s.seq DESC) AS running
          FROM (${sizedMessages(conversationId, budget.count)}) s) w
    WHERE w.running <= ${budget.bytes}`)) as unknown as {
    rows: Array<{ first: number | null; bytes: number | null }>;
  };
  const row = res.rows[0];
  if (row?.first === null || row?.first === undefined) return undefined;
  return { seq: Number(row.first), bytes: Number(row.bytes ?? 0) };
}

/** Stores the size a message was measured at when written (see {@link sizedMessages}). */
export async function storeMessageBytes(db: Db, messageId: string, bytes: number): Promise<void> {
  await db.update(messages).set({ jsonBytes: bytes }).where(eq(messages.id, messageId));
}

/** Highest message sequence number of a conversation (0 when empty). */
export async function lastSeq(db: Db, conversationId: string): Promise<number> {
  const [row] = await db
    .select({ seq: max(messages.seq) })
    .from(messages)
    .where(eq(messages.conversationId, conversationId));
  return row?.seq ?? 0;
}

/** Inserts a message with its changes. */
export async function insertMessage(db: Db, row: MessageRow, changes: ChangeRow[]): Promise<void> {
  await db.insert(messages).values(row);
  if (changes.length > 0) await db.insert(messageChanges).values(changes);
}

/** Finds a message of a tenant's audience. */
export async function findMessage(
  db: Db,
  tenantId: string,
  audienceId: string,
  messageId: string,
): Promise<MessageRow | undefined> {
  const rows = await db
    .select()
    .from(messages)
    .where(
      and(eq(messages.tenantId, tenantId), eq(messages.audienceId, audienceId), eq(messages.id, messageId)),
    );
  return rows[0];
}

/** Marks applied changes of messages after `seq` as reverted. */
export async function revertChangesAfter(db: Db, audienceId: string, seq: number): Promise<void> {
  await db
    .update(messageChanges)
    .set({ status: 'reverted' })
    .where(
      and(
        eq(messageChanges.audienceId, audienceId),
        gt(messageChanges.messageSeq, seq),
        eq(messageChanges.status, 'applied'),
      ),
    );
}

/** Sets the conversation's published message. */
export async function setPublishedMessage(
  db: Db,
  conversationId: string,
  messageId: string,
  at: Date,
): Promise<void> {
  await db
    .update(conversations)
    .set({ publishedMessageId: messageId, updatedAt: at })
    .where(eq(conversations.id, conversationId));
}
