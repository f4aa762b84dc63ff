import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Stored media and component items. `lifecycle_state` is `active` while the item is stored (trashed or not; the trash is `trashed_at`). */
export const assets = pgTable(
  'assets',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    purpose: text('purpose'),
    aiDescription: text('ai_description'),
    parentAssetId: text('parent_asset_id'),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    hidden: boolean('hidden').notNull().default(false),
    dataType: text('data_type').notNull(),
    fileId: text('file_id').notNull(),
    lifecycleState: text('lifecycle_state').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    trashedAt: ts('trashed_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ name: 'assets_pkey', columns: [t.tenantId, t.id] }),
    // Keyset indexes are ascending and scanned backwards for newest first: ORDER BY … DESC means
    // NULLS FIRST, which drizzle's `.desc()` (DESC NULLS LAST) cannot serve.
    // listTrashedAssets: keyset scans over the trash, most recently trashed first, all types ...
    index('assets_trash_idx')
      .on(t.tenantId, t.trashedAt, t.id)
      .where(sql`${t.trashedAt} IS NOT NULL AND ${t.deletedAt} IS NULL`),
    // ... or one assetType ...
    index('assets_trash_type_idx')
      .on(t.tenantId, t.dataType, t.trashedAt, t.id)
      .where(sql`${t.trashedAt} IS NOT NULL AND ${t.deletedAt} IS NULL`),
    // ... and `query`: a case-insensitive substring match (ILIKE) served by trigrams, with the
    // tenant in the same GIN index (btree_gin) so one tenant's matches are found without the others'.
    index('assets_trash_name_trgm_idx')
      .using('gin', t.tenantId, sql`${t.name} gin_trgm_ops`)
      .where(sql`${t.trashedAt} IS NOT NULL AND ${t.deletedAt} IS NULL`),
  ],
);
