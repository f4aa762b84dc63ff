import type { Handle } from '../../db/port.js';
import { messageChanges, messages } from '../../db/schema/index.js';
import { columns, int, type Param, raw, rowOf, type Sql, sql, statement, text } from '../../db/sql.js';
import type { ChangeRow, MessageRow } from './messages.repo.js';

// The reads of an audience's history, and the sizes that bound them (see history-limits.ts).

/** A `json` value as a `json-bytes` statement returns it: its UTF-8 bytes, or its text on PGlite. */
export type JsonValueText = Buffer | string;

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

/** A message's columns but its snapshot, tool calls and content parts. */
const MESSAGE_FIELDS = columns(messages, {
  alias: 'm',
  keys: [
    'id',
    'tenantId',
    'conversationId',
    'audienceId',
    'seq',
    'role',
    'content',
    'timestampMs',
    'reasoning',
    'isInterrupted',
    'jsonBytes',
    'createdAt',
  ],
});

type MessageFieldsRow = Omit<MessageRow, 'snapshot' | 'toolCalls' | 'contentParts'> & {
  hasSnapshot: boolean;
};

const messageFields = statement({
  name: 'messages_history_from',
  params: { tenantId: text, conversationId: text, fromSeq: int },
  sql: (p) => sql`SELECT ${MESSAGE_FIELDS}, m.snapshot IS NOT NULL AS "hasSnapshot" FROM messages m
    WHERE m.tenant_id = ${p.tenantId} AND m.conversation_id = ${p.conversationId} AND m.seq >= ${p.fromSeq}
    ORDER BY m.seq ASC`,
  row: rowOf<MessageFieldsRow>(),
});

type JsonRow = { seq: number; toolCalls: JsonValueText | null; contentParts: JsonValueText | null };

/** Tool calls and content parts of a range of messages, as bytes (binary results). */
const messagesJson = statement({
  name: 'messages_json_text',
  params: { tenantId: text, conversationId: text, from: int, to: int },
  sql: (p) => sql`SELECT seq, tool_calls AS "toolCalls", content_parts AS "contentParts" FROM messages
  WHERE tenant_id = ${p.tenantId} AND conversation_id = ${p.conversationId} AND seq BETWEEN ${p.from} AND ${p.to}`,
  row: rowOf<JsonRow>(),
  format: 'json-bytes',
});

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
 * Messages of a tenant's conversation from sequence number `fromSeq` on, oldest first. Snapshots (each up
 * to the audience's whole editable state, and not part of what a read sends) stay in the database.
 * Tool calls and content parts come in further statements, as bytes (`json-bytes`), one per
 * {@link HISTORY_SLICE_BYTES} of them: messages are never deleted and never change them, so the
 * rows of the first statement are all there, and the slices read one consistent history.
 */
export async function listMessages(
  db: Handle,
  tenantId: string,
  conversationId: string,
  fromSeq = 1,
): Promise<HistoryMessageRow[]> {
  const rows = await db.all(messageFields, { tenantId, conversationId, fromSeq });
  const bySeq = new Map<number, JsonRow>();
  for (const [from, to] of historySlices(rows)) {
    const json = await db.all(messagesJson, { tenantId, conversationId, from, to });
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

const changesFrom = statement({
  name: 'message_changes_from',
  params: { tenantId: text, audienceId: text, fromSeq: int },
  sql: (p) => sql`SELECT ${columns(messageChanges)} FROM message_changes
    WHERE tenant_id = ${p.tenantId} AND audience_id = ${p.audienceId} AND message_seq >= ${p.fromSeq}
    ORDER BY message_seq ASC, position ASC`,
  row: rowOf<ChangeRow>(),
});

/** Changes of an audience's messages from sequence number `fromSeq` on, in message and position order. */
export function listChanges(
  db: Handle,
  tenantId: string,
  audienceId: string,
  fromSeq = 1,
): Promise<ChangeRow[]> {
  return db.all(changesFrom, { tenantId, audienceId, fromSeq });
}

// JSON of a message without its content, reasoning, tool calls, content parts and changes (ids,
// role, timestamp, flags: about 200 bytes), and of a change without its two values (about 130).
const MESSAGE_OVERHEAD = 256;
const CHANGE_OVERHEAD = 160;

/**
 * `(seq, bytes)` of each message of a tenant's conversation (only the `newest` ones, when given): the size
 * of the message's JSON as the history read returns it, changes included, computed by the
 * database so that Node builds no string for it. Tool calls and content parts are sent as
 * PostgreSQL prints them (see JsonText), and the rest is bounded by generous overheads, so a bound
 * on this holds on what is sent. Saved changes count twice, as the read lists them again under
 * pendingChanges. A message's size is stored when it is written ({@link storeMessageBytes};
 * nothing changes it later), so reads sum integers: only messages written before sizes were
 * stored are measured again.
 */
function sizedMessages(
  conversation: { tenantId: Param<string>; conversationId: Param<string> },
  newest?: Param<number>,
): Sql {
  return sql`
    SELECT m.seq, coalesce(m.json_bytes, ${raw(String(MESSAGE_OVERHEAD))}
      + octet_length(to_json(m.content)::text)
      + coalesce(octet_length(to_json(m.reasoning)::text), 4)
      + coalesce(octet_length(m.tool_calls::text), 4)
      + coalesce(octet_length(m.content_parts::text), 4)
      + coalesce((
          SELECT sum(
            (${raw(String(CHANGE_OVERHEAD))}
              + coalesce(octet_length(to_json(c.previous_value)::text), 4)
              + coalesce(octet_length(to_json(c.new_value)::text), 4))
            * CASE WHEN c.status = 'saved' THEN 2 ELSE 1 END)
          FROM message_changes c
          WHERE c.tenant_id = ${conversation.tenantId} AND c.audience_id = m.audience_id AND c.message_seq = m.seq
        ), 0)) AS bytes
    FROM messages m
    WHERE m.tenant_id = ${conversation.tenantId} AND m.conversation_id = ${conversation.conversationId}
    ${newest === undefined ? sql`` : sql`ORDER BY m.seq DESC LIMIT ${newest}`}`;
}

// float8 keeps the sums numbers (a sum of int8 is numeric, which drivers give as text).
const measure = statement({
  name: 'messages_measure_history',
  params: { tenantId: text, conversationId: text, seq: int },
  sql: (p) => sql`
    SELECT coalesce(sum(s.bytes), 0)::float8 AS total,
      coalesce(max(s.bytes) FILTER (WHERE s.seq = ${p.seq}), 0)::float8 AS message
    FROM (${sizedMessages(p)}) s`,
  row: rowOf<{ total: number; message: number }>(),
});

/**
 * Sizes of a tenant's conversation (see {@link sizedMessages}): all messages, and the message
 * `seq` alone.
 */
export async function measureHistory(
  db: Handle,
  tenantId: string,
  conversationId: string,
  seq: number,
): Promise<{ totalBytes: number; messageBytes: number }> {
  const row = await db.first(measure, { tenantId, conversationId, seq });
  return { totalBytes: Number(row?.total ?? 0), messageBytes: Number(row?.message ?? 0) };
}

const within = statement({
  name: 'messages_first_seq_within',
  params: { tenantId: text, conversationId: text, count: int, bytes: int },
  sql: (p) => sql`
    SELECT min(w.seq)::int AS first, max(w.running)::float8 AS bytes
    FROM (SELECT s.seq, sum(s.bytes) OVER (ORDER BY s.seq DESC) AS running
          FROM (${sizedMessages(p, p.count)}) s) w
    WHERE w.running <= ${p.bytes}`,
  row: rowOf<{ first: number | null; bytes: number | null }>(),
});

/**
 * The oldest sequence number from which a tenant's conversation's newest messages, at most `count` of
 * them, fit in `bytes` (see {@link sizedMessages}), and their size; undefined when not even the
 * newest one does. Only those `count` messages are measured, however long the conversation.
 */
export async function firstSeqWithin(
  db: Handle,
  tenantId: string,
  conversationId: string,
  budget: { count: number; bytes: number },
): Promise<{ seq: number; bytes: number } | undefined> {
  const row = await db.first(within, { tenantId, conversationId, ...budget });
  if (row?.first === null || row?.first === undefined) return undefined;
  return { seq: Number(row.first), bytes: Number(row.bytes ?? 0) };
}

const storeBytes = statement({
  name: 'message_store_json_bytes',
  params: { tenantId: text, messageId: text, bytes: int },
  sql: (p) =>
    sql`UPDATE messages SET json_bytes = ${p.bytes} WHERE tenant_id = ${p.tenantId} AND id = ${p.messageId}`,
});

/** Stores the size a tenant's message was measured at when written (see {@link sizedMessages}). */
export async function storeMessageBytes(
  db: Handle,
  tenantId: string,
  messageId: string,
  bytes: number,
): Promise<void> {
  await db.run(storeBytes, { tenantId, messageId, bytes });
}
