import type {
  Asset,
  CreateAssetBodySchema,
  ListTrashedAssetsQuerySchema,
  Paginated,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Handle, Tx } from '../../db/port.js';
import { type Clock, iso } from '../../lib/clock.js';
import { adjustCounter, readCounter } from '../../lib/counters.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import { type CursorCodec, keysetPage } from '../../lib/pagination.js';
import * as repo from './assets.repo.js';
import type { AssetLinks, DownloadLinks } from './content/links.js';
import { assertSearchable } from './trash-search.js';

/** Dependencies of asset operations. */
export interface AssetsDeps {
  db: Handle;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
  config: Pick<Config, 'baseUrl'>;
  downloadLinks: DownloadLinks;
}

/** Counter scope of a tenant's trashed assets, optionally of one type. */
export function trashCounter(assetType?: string): string {
  return assetType ? `assets:trash:${assetType}` : 'assets:trash';
}

/**
 * Maps a stored asset; `links` signs its download addresses (one link maker per response, so
 * every asset of a response expires at the same moment).
 */
export function toApiAsset(
  row: repo.AssetRow,
  links: (tenantId: string, assetId: string) => AssetLinks,
): Asset {
  return {
    assetId: row.id,
    tenantId: row.tenantId,
    name: row.name,
    ...(row.purpose === null ? {} : { purpose: row.purpose }),
    ...(row.aiDescription === null ? {} : { aiDescription: row.aiDescription }),
    ...(row.parentAssetId === null ? {} : { parentAssetId: row.parentAssetId }),
    tags: row.tags,
    hidden: row.hidden,
    data: { type: row.dataType, fileId: row.fileId },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...(row.trashedAt === null ? {} : { trashedAt: iso(row.trashedAt) }),
    ...(row.deletedAt === null ? {} : { deletedAt: iso(row.deletedAt) }),
    lifecycleState: row.lifecycleState,
    ...links(row.tenantId, row.id),
  };
}

/**
 * 404 unless `parentAssetId` names a stored asset of the tenant: another tenant's is "not found"
 * like an unknown one, so the answer confirms nothing. A trashed parent counts (the trash is
 * reversible); a deleted one does not.
 */
async function requireParentAsset(db: Handle, tenantId: string, parentAssetId: string): Promise<void> {
  const parent = await repo.findAsset(db, tenantId, parentAssetId);
  if (!parent || parent.deletedAt)
    throw new NotFoundError(`Asset ${parentAssetId} (body field parentAssetId) not found.`);
}

/** Registers an asset (lifecycleState `active`). */
export async function createAsset(
  deps: AssetsDeps,
  tenantId: string,
  body: z.output<typeof CreateAssetBodySchema>,
): Promise<Asset> {
  if (body.parentAssetId !== undefined) await requireParentAsset(deps.db, tenantId, body.parentAssetId);
  const now = deps.clock();
  const row = await repo.insertAsset(deps.db, {
    id: deps.ids('asset'),
    tenantId,
    name: body.name,
    purpose: body.purpose ?? null,
    aiDescription: body.aiDescription ?? null,
    parentAssetId: body.parentAssetId ?? null,
    tags: body.tags ?? [],
    hidden: body.hidden ?? false,
    dataType: body.data.type,
    fileId: body.data.fileId,
    lifecycleState: 'active',
    createdAt: now,
    updatedAt: now,
  });
  return toApiAsset(row, deps.downloadLinks.at(now));
}

/** Moves an asset to the trash; one already there is 409 CONFLICT. */
export async function trashAsset(deps: AssetsDeps, tenantId: string, assetId: string): Promise<Asset> {
  const row = await deps.db.transaction(async (tx) => {
    const asset = await repo.findAssetForUpdate(tx, tenantId, assetId);
    if (!asset || asset.deletedAt) throw new NotFoundError(`Asset ${assetId} not found.`);
    if (asset.trashedAt) throw new ConflictError(`Asset ${assetId} is already in the trash.`);
    const now = deps.clock();
    // lifecycleState stays `active`: the trash is reversible and shown by trashedAt; the
    // specification's trash listing shape carries `active`.
    const trashed = await repo.markAssetTrashed(tx, tenantId, assetId, now);
    await adjustCounter(tx, tenantId, trashCounter(), 1);
    await adjustCounter(tx, tenantId, trashCounter(asset.dataType), 1);
    return trashed;
  });
  return toApiAsset(row, deps.downloadLinks.at(deps.clock()));
}

/**
 * Lists the trash, most recently trashed first, filtered by `assetType` and a case-insensitive
 * name `query`. `totalCount` comes from maintained counters, or with `query` from an
 * index-served count of the matches.
 */
export async function listTrashedAssets(
  deps: AssetsDeps,
  tenantId: string,
  query: z.output<typeof ListTrashedAssetsQuerySchema>,
): Promise<Paginated<Asset>> {
  const filter: repo.TrashFilter = { tenantId, assetType: query.assetType, query: query.query };
  const links = deps.downloadLinks.at(deps.clock());
  await assertSearchable(deps.db, tenantId, query.query, trashCounter());
  return keysetPage({
    cursors: deps.cursors,
    binding: {
      tenantId,
      operation: 'listTrashedAssets',
      filters: { assetType: query.assetType, query: query.query },
    },
    query,
    fetch: (take, after) => repo.listTrash(deps.db, filter, take, after),
    count: () =>
      query.query
        ? repo.countTrashMatches(deps.db, filter)
        : readCounter(deps.db, tenantId, trashCounter(query.assetType)),
    position: (r) => ({ createdAt: r.trashedAt ?? r.createdAt, id: r.id }),
    map: (r) => toApiAsset(r, links),
  });
}

/** Locks a tenant's asset until `tx` ends, when it exists (`If-Match`, `http/conditional.ts`). */
export async function lockAsset(tx: Tx, tenantId: string, assetId: string): Promise<void> {
  await repo.findAssetForUpdate(tx, tenantId, assetId);
}

/** Reads one asset as createAsset and trashAsset answer it (`If-Match`, `http/conditional.ts`). */
export async function readAsset(deps: AssetsDeps, tenantId: string, assetId: string): Promise<Asset> {
  const row = await repo.findAsset(deps.db, tenantId, assetId);
  if (!row || row.deletedAt) throw new NotFoundError(`Asset ${assetId} not found.`);
  return toApiAsset(row, deps.downloadLinks.at(deps.clock()));
}
