import type { TopicEntry } from '@customer-api/contract';
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Knowledge topics. Exactly one per tenant has `is_default` (a partial unique index holds it). */
export const topics = pgTable(
  'topics',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    title: text('title').notNull(),
    purpose: text('purpose'),
    sortOrder: bigint('sort_order', { mode: 'number' }).notNull().default(0),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'topics_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('topics_tenant_default_key').on(t.tenantId).where(sql`${t.isDefault}`),
    // listTopics: keyset scan in (sortOrder, id) order.
    index('topics_tenant_list_idx').on(t.tenantId, t.sortOrder, t.id),
  ],
);

/** Entries of a topic (no API writes them yet; reads include them). */
export const topicEntries = pgTable(
  'topic_entries',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    topicId: text('topic_id').notNull(),
    sortOrder: bigint('sort_order', { mode: 'number' }).notNull().default(0),
    content: jsonb('content').$type<Partial<TopicEntry['content']>>().notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'topic_entries_pkey', columns: [t.tenantId, t.id] }),
    index('topic_entries_topic_idx').on(t.topicId, t.sortOrder, t.id),
  ],
);
