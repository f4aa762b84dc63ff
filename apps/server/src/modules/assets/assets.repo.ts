import { and, count, desc, eq, ilike, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { assets } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored asset. */
export type AssetRow = typeof assets.$inferSelect;

/** Filters of the trash listing. */
export interface TrashFilter {
  tenantId: string;
  assetType?: string | undefined;
  /** Case-insensitive substring of the name. */
  query?: string | undefined;
}

/** `%text%` for ILIKE with the pattern characters of `text` escaped (they match literally). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function trashWhere(filter: TrashFilter) {
  return and(
    eq(assets.tenantId, filter.tenantId),
    isNotNull(assets.trashedAt),
    isNull(assets.deletedAt),
    filter.assetType ? eq(assets.dataType, filter.assetType) : undefined,
    filter.query ? ilike(assets.name, containsPattern(filter.query)) : undefined,
  );
}

/** Inserts an asset. */
export async function insertAsset(db: Db, row: typeof assets.$inferInsert): Promise<AssetRow> {
  const [inserted] = await db.insert(assets).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Finds a tenant's asset and locks it until the transaction ends. */
export async function findAssetForUpdate(
  db: Db,
  tenantId: string,
  assetId: string,
): Promise<AssetRow | undefined> {
  const rows = await db
    .select()
    .from(assets)
    .where(and(eq(assets.tenantId, tenantId), eq(assets.id, assetId)))
    .for('update');
  return rows[0];
}

/** Updates an asset and returns it. */
export async function updateAsset(
  db: Db,
  assetId: string,
  patch: Partial<Pick<AssetRow, 'lifecycleState' | 'trashedAt' | 'updatedAt'>>,
): Promise<AssetRow> {
  const [row] = await db.update(assets).set(patch).where(eq(assets.id, assetId)).returning();
  if (!row) throw new Error(`asset ${assetId} vanished during update`);
  return row;
}

/** One keyset page of the trash, most recently trashed first. */
export async function listTrash(
  db: Db,
  filter: TrashFilter,
  take: number,
  after: KeysetPosition | undefined,
): Promise<AssetRow[]> {
  return db
    .select()
    .from(assets)
    .where(and(trashWhere(filter), after ? keysetAfter(assets.trashedAt, assets.id, after) : undefined))
    .orderBy(desc(assets.trashedAt), desc(assets.id))
    .limit(take);
}

/**
 * Counts the trashed assets matching a name query. Only used with `query` (other filters read
 * maintained counters): the trigram index finds the candidates, so the cost follows the matches.
 */
export async function countTrashMatches(db: Db, filter: TrashFilter): Promise<number> {
  const [row] = await db.select({ n: count() }).from(assets).where(trashWhere(filter));
  return row?.n ?? 0;
}

/** Finds a tenant's asset by id. */
export async function findAsset(db: Db, tenantId: string, assetId: string): Promise<AssetRow | undefined> {
  const rows = await db
    .select()
    .from(assets)
    .where(and(eq(assets.tenantId, tenantId), eq(assets.id, assetId)));
  return rows[0];
}
