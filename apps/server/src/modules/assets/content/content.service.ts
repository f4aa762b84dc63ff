import { createHash } from 'node:crypto';
import { type Asset, etagMatches } from '@customer-api/contract';
import type { Handle } from '../../../db/port.js';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError, PreconditionFailedError, ValidationError } from '../../../lib/errors.js';
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
  /** The request's `If-Match`: store only while the served bytes still have one of its tags. */
  ifMatch?: string | undefined;
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
): Promise<{ asset: Asset; etag: string }> {
  await requireAsset(deps.db, tenantId, assetId);
  if (upload.declaredLength !== undefined && upload.declaredLength > deps.maxBytes)
    throw tooLarge(deps.maxBytes);
  // A stale If-Match is refused before a byte is stored, and again where the swap commits.
  if (upload.ifMatch !== undefined) await checkIfMatch(deps.db, tenantId, assetId, kind, upload.ifMatch);
  const blobId = deps.ids('blob');
  const measure = { size: 0, sha256: '' };
  await deps.store.put(tenantId, blobId, measured(upload.body, deps.maxBytes, measure));
  let replaced: string | undefined;
  let row: assetsRepo.AssetRow;
  try {
    row = await deps.db.transaction(async (tx) => {
      const asset = await assetsRepo.findAssetForUpdate(tx, tenantId, assetId);
      if (!asset || asset.deletedAt) throw new NotFoundError(`Asset ${assetId} not found.`);
      if (upload.ifMatch !== undefined) await checkIfMatch(tx, tenantId, assetId, kind, upload.ifMatch);
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
  return { asset: toApiAsset(row, deps.downloadLinks.at(deps.clock())), etag: contentEtag(measure.sha256) };
}

/** The `ETag` of stored bytes: what their downloads send, and what an upload's `If-Match` names. */
export const contentEtag = (sha256: string): string => `"${sha256}"`;

/**
 * Throws 412 PRECONDITION_FAILED unless `ifMatch` names the ETag of what the `kind` download of
 * the asset serves now (`*`: anything served). Run under the asset's lock, it is atomic with the swap.
 */
async function checkIfMatch(
  db: Handle,
  tenantId: string,
  assetId: string,
  kind: ContentKind,
  ifMatch: string,
): Promise<void> {
  const file = await repo.findServedFile(db, tenantId, assetId, kind);
  if (file && etagMatches(ifMatch, contentEtag(file.sha256), 'strong')) return;
  throw new PreconditionFailedError(
    `The asset's ${kind} changed since it was read: If-Match does not name the ETag its download sends now. Download it again, then decide whether the upload still applies.`,
  );
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
