import type { Change, Message } from '@customer-api/contract';
import {
  bigint,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** One conversation per audience, created with its first message. */
export const conversations = pgTable(
  'conversations',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    audienceId: text('audience_id').notNull(),
    publishedMessageId: text('published_message_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'conversations_pkey', columns: [t.tenantId, t.id] }),
    unique('conversations_audience_key').on(t.tenantId, t.audienceId),
  ],
);

/** Messages of a conversation; `snapshot` holds the audience's editable fields after the message. */
export const messages = pgTable(
  'messages',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    conversationId: text('conversation_id').notNull(),
    audienceId: text('audience_id').notNull(),
    seq: integer('seq').notNull(),
    role: text('role').$type<Message['role']>().notNull(),
    content: text('content').notNull(),
    timestampMs: bigint('timestamp_ms', { mode: 'number' }).notNull(),
    // json, not jsonb: kept as the text written, which a history read sends as it is (JsonText).
    toolCalls: json('tool_calls').$type<NonNullable<Message['toolCalls']>>(),
    contentParts: json('content_parts').$type<NonNullable<Message['contentParts']>>(),
    reasoning: text('reasoning'),
    isInterrupted: boolean('is_interrupted').notNull().default(false),
    snapshot: jsonb('snapshot'),
    /** The message's size in a history read, changes included, measured when it was written. */
    jsonBytes: integer('json_bytes'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'messages_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('messages_conversation_seq_idx').on(t.tenantId, t.conversationId, t.seq),
  ],
);

/** Changes proposed or applied by a message. */
export const messageChanges = pgTable(
  'message_changes',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    messageId: text('message_id').notNull(),
    audienceId: text('audience_id').notNull(),
    messageSeq: integer('message_seq').notNull(),
    position: integer('position').notNull(),
    field: text('field').$type<Change['field']>().notNull(),
    previousValue: text('previous_value'),
    newValue: text('new_value'),
    status: text('status').$type<Change['status']>().notNull(),
  },
  (t) => [
    primaryKey({ name: 'message_changes_pkey', columns: [t.tenantId, t.id] }),
    index('message_changes_audience_idx').on(t.audienceId, t.messageSeq, t.position),
  ],
);
