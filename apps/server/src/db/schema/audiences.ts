import type { AudienceVersion, Metadata, RestoredAudience } from '@customer-api/contract';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Audiences of a page. `prior_status` is what restore returns to. */
export const audiences = pgTable(
  'audiences',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    pageId: text('page_id').notNull(),
    personId: text('person_id'),
    personRouteKey: text('person_route_key'),
    computedName: text('computed_name').notNull(),
    customName: text('custom_name'),
    isNewPageAgent: boolean('is_new_page_agent').notNull().default(false),
    status: text('status').$type<RestoredAudience['status']>().notNull(),
    priorStatus: text('prior_status').$type<RestoredAudience['status']>(),
    supplementaryContext: text('supplementary_context'),
    actionFormIdOverride: text('action_form_id_override'),
    actionFormInstructionsOverride: text('action_form_instructions_override'),
    actionUrlOverride: text('action_url_override'),
    metadataOverride: jsonb('metadata_override').$type<Metadata>(),
    latestVersionId: text('latest_version_id'),
    publishedVersionId: text('published_version_id'),
    versionsCount: integer('versions_count').notNull().default(0),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    primaryKey({ name: 'audiences_pkey', columns: [t.tenantId, t.id] }),
    // listAudiences: keyset scan over one page's audiences, newest first.
    index('audiences_page_list_idx').on(t.tenantId, t.pageId, t.createdAt.desc(), t.id.desc()),
  ],
);

/** Versions of an audience; `version_number` counts from 1 per audience. */
export const audienceVersions = pgTable(
  'audience_versions',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    pageId: text('page_id').notNull(),
    audienceId: text('audience_id').notNull(),
    versionNumber: integer('version_number').notNull(),
    status: text('status').$type<AudienceVersion['status']>().notNull(),
    isNewPageAgent: boolean('is_new_page_agent').notNull(),
    supplementaryContext: text('supplementary_context'),
    queueDurationMs: integer('queue_duration_ms'),
    createdAt: ts('created_at').notNull(),
    becameDraftAt: ts('became_draft_at'),
    cancelledAt: ts('cancelled_at'),
    archivedAt: ts('archived_at'),
    obsoleteAt: ts('obsolete_at'),
    publishedAt: ts('published_at'),
    queuedAt: ts('queued_at'),
  },
  (t) => [
    primaryKey({ name: 'audience_versions_pkey', columns: [t.tenantId, t.id] }),
    unique('audience_versions_number_key').on(t.tenantId, t.audienceId, t.versionNumber),
  ],
);
