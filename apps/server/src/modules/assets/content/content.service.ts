import { createHash } from 'node:crypto';
import type { Asset } from '@customer-api/contract';
import type { Handle } from '../../../db/port.js';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import type { IdSource } from '../../../lib/ids.js';
import * as assetsRepo from '../assets.repo.js';
import { toApiAsset } from '../assets.service.js';
import * as repo from './content.repo.js';
import type { ContentKind, DownloadLinks } from './links.js';
import type { AssetStore } from './store.js';

/** Dependencies of content uploads and downloads. */
export interface ContentDeps {
  /** The handle of the request's tenant: its statements hold the tenant's share of connections. */
  db: Handle;
  clock: Clock;
  ids: IdSource;
  store: AssetStore;
  downloadLinks: DownloadLinks;
  /** Largest accepted body (`ASSET_MAX_BYTES`). */
  maxBytes: number;
}

/** One upload: the body as it arrives, its media type, and the length it declared (if any). */
export interface Upload {
  body: AsyncIterable<Buffer>;
  contentType: string;
  declaredLength: number | undefined;
}

function tooLarge(maxBytes: number): ValidationError {
  return ValidationError.of('body', `The body is larger than ASSET_MAX_BYTES (${maxBytes} bytes).`);
}

/** Passes the body through, counting and hashing it; fails as soon as it passes `maxBytes`. */
async function* measured(
  body: AsyncIterable<Buffer>,
  maxBytes: number,
  out: { size: number; sha256: string },
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  for await (const piece of body) {
    out.size += piece.length;
    if (out.size > maxBytes) throw tooLarge(maxBytes);
    hash.update(piece);
    yield piece;
  }
  out.sha256 = hash.digest('base64url');
}

async function requireAsset(db: Handle, tenantId: string, assetId: string): Promise<assetsRepo.AssetRow> {
  const asset = await assetsRepo.findAsset(db, tenantId, assetId);
  // Another tenant's asset is "not found" like an unknown one.
  if (!asset || asset.deletedAt) throw new NotFoundError(`Asset ${assetId} not found.`);
  return asset;
}

/**
 * Stores an upload as the asset's content or preview. The bytes go to a new blob first; only
 * when every byte is stored does one transaction point the asset at it, so a reader sees the
 * old content or the new one, and a failed or oversized upload leaves the old one in place.
 */
export async function putContent(
  deps: ContentDeps,
  tenantId: string,
  assetId: string,
  kind: ContentKind,
  upload: Upload,
): Promise<Asset> {
  await requireAsset(deps.db, tenantId, assetId);
  if (upload.declaredLength !== undefined && upload.declaredLength > deps.maxBytes)
    throw tooLarge(deps.maxBytes);
  const blobId = deps.ids('blob');
  const measure = { size: 0, sha256: '' };
  await deps.store.put(tenantId, blobId, measured(upload.body, deps.maxBytes, measure));
  let replaced: string | undefined;
  let row: assetsRepo.AssetRow;
  try {
    row = await deps.db.transaction(async (tx) => {
      const asset = await assetsRepo.findAssetForUpdate(tx, tenantId, assetId);
      if (!asset || asset.deletedAt) throw new NotFoundError(`Asset ${assetId} not found.`);
      const now = deps.clock();
      replaced = await repo.swapFile(tx, {
        assetId,
        kind,
        tenantId,
        blobId,
        contentType: upload.contentType,
        size: measure.size,
        sha256: measure.sha256,
        updatedAt: now,
      });
      return assetsRepo.touchAsset(tx, tenantId, assetId, now);
    });
  } catch (err) {
    await deps.store.delete(tenantId, blobId);
    throw err;
  }
  if (replaced) await deps.store.delete(tenantId, replaced);
  return toApiAsset(row, deps.downloadLinks.at(deps.clock()));
}

/**
 * The file a valid link of the tenant's `assetId` and `kind` serves; 404 when nothing was
 * uploaded.
 */
export async function servedFile(
  deps: ContentDeps,
  tenantId: string,
  assetId: string,
  kind: ContentKind,
): Promise<repo.AssetFileRow> {
  const file = await repo.findServedFile(deps.db, tenantId, assetId, kind);
  if (!file)
    throw new NotFoundError(
      `Asset ${assetId} has no content yet; upload it with PUT /v0/assets/${assetId}/content.`,
    );
  return file;
}
