import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Audience sessions: one visit to an audience's experience. */
export const audienceSessions = pgTable(
  'audience_sessions',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    audienceId: text('audience_id').notNull(),
    pageId: text('page_id').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ name: 'audience_sessions_pkey', columns: [t.tenantId, t.id] })],
);

/** Interactions recorded in an audience session; `timestamp_ms` is epoch milliseconds. */
export const sessionInteractions = pgTable(
  'session_interactions',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    sessionId: text('session_id').notNull(),
    componentId: text('component_id').notNull(),
    label: text('label').notNull(),
    componentContext: text('component_context'),
    responseText: text('response_text'),
    groundingChunkIds: text('grounding_chunk_ids').array().notNull(),
    options: text('options').array().notNull(),
    timestampMs: bigint('timestamp_ms', { mode: 'number' }).notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'session_interactions_pkey', columns: [t.tenantId, t.id] }),
    // getAudienceSessionInteractions: a session's interactions, oldest first.
    index('session_interactions_session_idx').on(t.sessionId, t.timestampMs, t.id),
  ],
);
