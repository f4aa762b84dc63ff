import type { Metadata, RestoredPage } from '@customer-api/contract';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Pages. Soft-archived (`archived_at`) and soft-deleted (`deleted_at`); `prior_status` is what restore returns to. */
export const pages = pgTable(
  'pages',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    title: text('title').notNull(),
    pageContext: text('page_context').notNull(),
    brandId: text('brand_id').notNull(),
    pageType: text('page_type').$type<RestoredPage['pageType']>().notNull(),
    status: text('status').$type<RestoredPage['status']>().notNull(),
    priorStatus: text('prior_status').$type<RestoredPage['status']>(),
    actions: jsonb('actions').$type<RestoredPage['actions']>().notNull().default([]),
    actionCardWidgets: jsonb('action_card_widgets')
      .$type<RestoredPage['actionCardWidgets']>()
      .notNull()
      .default([]),
    footerLinks: jsonb('footer_links')
      .$type<NonNullable<RestoredPage['footerLinks']>>()
      .notNull()
      .default([]),
    scripts: jsonb('scripts').$type<RestoredPage['scripts']>().notNull().default([]),
    headerActionId: text('header_action_id'),
    metadata: jsonb('metadata').$type<Metadata>(),
    audiencesCount: integer('audiences_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    archivedAt: ts('archived_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ name: 'pages_pkey', columns: [t.tenantId, t.id] }),
    // listPages: keyset scan over a tenant's live pages, newest first.
    index('pages_tenant_list_idx')
      .on(t.tenantId, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.deletedAt} IS NULL`),
  ],
);
