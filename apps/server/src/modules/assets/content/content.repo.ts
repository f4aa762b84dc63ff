import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import { assetFiles, assets } from '../../../db/schema/index.js';
import type { ContentKind } from './links.js';

/** The stored content or preview of an asset. */
export type AssetFileRow = typeof assetFiles.$inferSelect;

/**
 * Points `(assetId, kind)` at a new blob and returns the blob it replaces (if any). Run it in the
 * transaction holding the asset's row lock, so concurrent uploads replace one another in turn.
 */
export async function swapFile(db: Db, row: AssetFileRow): Promise<string | undefined> {
  const [old] = await db
    .select({ blobId: assetFiles.blobId })
    .from(assetFiles)
    .where(and(eq(assetFiles.assetId, row.assetId), eq(assetFiles.kind, row.kind)));
  await db
    .insert(assetFiles)
    .values(row)
    .onConflictDoUpdate({
      target: [assetFiles.assetId, assetFiles.kind],
      set: {
        blobId: row.blobId,
        contentType: row.contentType,
        size: row.size,
        sha256: row.sha256,
        updatedAt: row.updatedAt,
      },
    });
  return old?.blobId;
}

/**
 * What a download of `kind` serves: the preview, else the content (a preview falls back to the
 * content when none was put). Undefined when there is neither or the asset is deleted.
 */
export async function findServedFile(
  db: Db,
  assetId: string,
  kind: ContentKind,
): Promise<AssetFileRow | undefined> {
  const kinds = kind === 'preview' ? ['preview', 'content'] : ['content'];
  const rows = await db
    .select({ file: assetFiles })
    .from(assetFiles)
    .innerJoin(assets, eq(assets.id, assetFiles.assetId))
    .where(and(eq(assetFiles.assetId, assetId), inArray(assetFiles.kind, kinds), isNull(assets.deletedAt)));
  const files = rows.map((r) => r.file);
  return files.find((f) => f.kind === kind) ?? files[0];
}
