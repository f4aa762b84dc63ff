import { bigint, customType, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * The current content and preview of each asset (`kind`), pointing at an immutable blob. A new
 * upload writes a new blob, then swaps this row in one transaction: readers see old or new.
 */
export const assetFiles = pgTable(
  'asset_files',
  {
    assetId: text('asset_id').notNull(),
    kind: text('kind').notNull(),
    tenantId: tenantId(),
    blobId: text('blob_id').notNull(),
    contentType: text('content_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'asset_files_pkey', columns: [t.tenantId, t.assetId, t.kind] })],
);

/**
 * Blob bytes in 1 MiB chunks when the server runs on PostgreSQL (every process reads them), kept
 * under the tenant of the asset whose file points at the blob.
 */
export const assetChunks = pgTable(
  'asset_chunks',
  {
    tenantId: tenantId(),
    blobId: text('blob_id').notNull(),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ name: 'asset_chunks_pkey', columns: [t.tenantId, t.blobId, t.seq] })],
);
