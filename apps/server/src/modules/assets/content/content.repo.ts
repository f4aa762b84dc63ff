import type { Handle, Tx } from '../../../db/port.js';
import { assetFiles } from '../../../db/schema/index.js';
import {
  assignments,
  columns,
  insertValues,
  int,
  rowOf,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../../../db/sql.js';
import type { ContentKind } from './links.js';

/** The stored content or preview of an asset. */
export type AssetFileRow = typeof assetFiles.$inferSelect;

const currentBlob = statement({
  name: 'asset_file_blob',
  params: { tenantId: text, assetId: text, kind: text },
  sql: (p) => sql`SELECT blob_id AS "blobId" FROM asset_files
    WHERE tenant_id = ${p.tenantId} AND asset_id = ${p.assetId} AND kind = ${p.kind}`,
  row: rowOf<{ blobId: string }>(),
});

const upsert = statement({
  name: 'asset_file_upsert',
  params: {
    assetId: text,
    kind: text,
    tenantId: text,
    blobId: text,
    contentType: text,
    size: int,
    sha256: text,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO asset_files ${insertValues(assetFiles, p)}
    ON CONFLICT (tenant_id, asset_id, kind) DO UPDATE SET ${assignments(assetFiles, {
      blobId: p.blobId,
      contentType: p.contentType,
      size: p.size,
      sha256: p.sha256,
      updatedAt: p.updatedAt,
    })}`,
});

/**
 * Points the tenant's `(assetId, kind)` at a new blob and returns the blob it replaces (if any).
 * Run it in the transaction holding the asset's row lock, so concurrent uploads replace one
 * another in turn.
 */
export async function swapFile(tx: Tx, row: AssetFileRow): Promise<string | undefined> {
  const old = await tx.first(currentBlob, { tenantId: row.tenantId, assetId: row.assetId, kind: row.kind });
  await tx.run(upsert, row);
  return old?.blobId;
}

// The signed link names its tenant (decision 0232): the file is read by the table's key, and the
// join keeps out a deleted asset.
const served = statement({
  name: 'asset_files_served',
  params: { tenantId: text, assetId: text, kinds: textArray },
  sql: (p) => sql`SELECT ${columns(assetFiles, { alias: 'f' })}
    FROM asset_files f INNER JOIN assets a ON a.tenant_id = f.tenant_id AND a.id = f.asset_id
    WHERE f.tenant_id = ${p.tenantId} AND f.asset_id = ${p.assetId} AND f.kind = ANY(${p.kinds})
      AND a.deleted_at IS NULL`,
  row: rowOf<AssetFileRow>(),
});

const SERVED_KINDS: Record<ContentKind, readonly string[]> = {
  content: ['content'],
  preview: ['preview', 'content'],
};

/**
 * What a download of the tenant's `assetId` and `kind` serves: the preview, else the content (a
 * preview falls back to the content when none was put). Undefined when there is neither or the
 * asset is deleted.
 */
export async function findServedFile(
  db: Handle,
  tenantId: string,
  assetId: string,
  kind: ContentKind,
): Promise<AssetFileRow | undefined> {
  const files = await db.all(served, { tenantId, assetId, kinds: SERVED_KINDS[kind] });
  return files.find((f) => f.kind === kind) ?? files[0];
}
