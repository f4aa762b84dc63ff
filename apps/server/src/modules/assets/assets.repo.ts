import type { Handle, Tx } from '../../db/port.js';
import { assets } from '../../db/schema/index.js';
import {
  assignments,
  bool,
  columns,
  insertValues,
  int,
  nullable,
  type Refs,
  raw,
  rowOf,
  type Sql,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../../db/sql.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored asset. */
export type AssetRow = typeof assets.$inferSelect;
/** An asset as registered (never trashed or deleted yet). */
export type NewAsset = Omit<AssetRow, 'trashedAt' | 'deletedAt'>;

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

const ASSET = columns(assets);

const insert = statement({
  name: 'asset_insert',
  params: {
    id: text,
    tenantId: text,
    name: text,
    purpose: nullable(text),
    aiDescription: nullable(text),
    parentAssetId: nullable(text),
    tags: textArray,
    hidden: bool,
    dataType: text,
    fileId: text,
    lifecycleState: text,
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO assets ${insertValues(assets, p)} RETURNING ${ASSET}`,
  row: rowOf<AssetRow>(),
});

/** Inserts an asset. */
export async function insertAsset(db: Handle, row: NewAsset): Promise<AssetRow> {
  const inserted = await db.first(insert, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const byId = statement({
  name: 'asset_by_id',
  params: { tenantId: text, assetId: text },
  sql: (p) => sql`SELECT ${ASSET} FROM assets WHERE tenant_id = ${p.tenantId} AND id = ${p.assetId}`,
  row: rowOf<AssetRow>(),
});

const byIdLocked = statement({
  name: 'asset_by_id_locked',
  params: { tenantId: text, assetId: text },
  sql: (p) =>
    sql`SELECT ${ASSET} FROM assets WHERE tenant_id = ${p.tenantId} AND id = ${p.assetId} FOR UPDATE`,
  row: rowOf<AssetRow>(),
});

/** Finds a tenant's asset by id. */
export function findAsset(db: Handle, tenantId: string, assetId: string): Promise<AssetRow | undefined> {
  return db.first(byId, { tenantId, assetId });
}

/** Finds a tenant's asset and locks it until the transaction ends. */
export function findAssetForUpdate(tx: Tx, tenantId: string, assetId: string): Promise<AssetRow | undefined> {
  return tx.first(byIdLocked, { tenantId, assetId });
}

const trash = statement({
  name: 'asset_set_trashed',
  params: { tenantId: text, assetId: text, trashedAt: timestamptz, updatedAt: timestamptz },
  sql: (p) => sql`UPDATE assets SET ${assignments(assets, { trashedAt: p.trashedAt, updatedAt: p.updatedAt })}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.assetId} RETURNING ${ASSET}`,
  row: rowOf<AssetRow>(),
});

const touch = statement({
  name: 'asset_touch',
  params: { tenantId: text, assetId: text, updatedAt: timestamptz },
  sql: (p) => sql`UPDATE assets SET ${assignments(assets, { updatedAt: p.updatedAt })}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.assetId} RETURNING ${ASSET}`,
  row: rowOf<AssetRow>(),
});

function updated(assetId: string, row: AssetRow | undefined): AssetRow {
  if (!row) throw new Error(`asset ${assetId} vanished during update`);
  return row;
}

/** Sets a tenant's asset's `trashedAt` (and `updatedAt`) and returns it. */
export async function markAssetTrashed(
  db: Handle,
  tenantId: string,
  assetId: string,
  now: Date,
): Promise<AssetRow> {
  return updated(assetId, await db.first(trash, { tenantId, assetId, trashedAt: now, updatedAt: now }));
}

/** Sets a tenant's asset's `updatedAt` (its content changed) and returns it. */
export async function touchAsset(
  db: Handle,
  tenantId: string,
  assetId: string,
  now: Date,
): Promise<AssetRow> {
  return updated(assetId, await db.first(touch, { tenantId, assetId, updatedAt: now }));
}

const TRASH_FILTER = { tenantId: text, assetType: nullable(text), pattern: nullable(text) };

/**
 * The statements of one combination of trash filters. Each combination has statements of its
 * own (no `$n IS NULL OR …`), so every prepared plan is the one its partial index serves.
 */
function trashStatements(byType: boolean, byName: boolean) {
  const variant = `assets_trash${byType ? '_type' : ''}${byName ? '_query' : ''}`;
  const where = (p: Refs<typeof TRASH_FILTER>): Sql =>
    sql`tenant_id = ${p.tenantId} AND trashed_at IS NOT NULL AND deleted_at IS NULL${
      byType ? sql` AND data_type = ${p.assetType}` : raw('')
    }${byName ? sql` AND name ILIKE ${p.pattern}` : raw('')}`;
  const order = raw('ORDER BY trashed_at DESC, id DESC');
  return {
    first: statement({
      name: `${variant}_first`,
      params: { ...TRASH_FILTER, take: int },
      sql: (p) => sql`SELECT ${ASSET} FROM assets WHERE ${where(p)} ${order} LIMIT ${p.take}`,
      row: rowOf<AssetRow>(),
    }),
    after: statement({
      name: `${variant}_after`,
      params: { ...TRASH_FILTER, take: int, trashedAt: timestamptz, id: text },
      sql: (p) => sql`SELECT ${ASSET} FROM assets WHERE ${where(p)}
        AND ${keysetAfter({ createdAt: p.trashedAt, id: p.id }, { columns: ['trashed_at', 'id'] })}
        ${order} LIMIT ${p.take}`,
      row: rowOf<AssetRow>(),
    }),
    count: statement({
      name: `${variant}_count`,
      params: TRASH_FILTER,
      sql: (p) => sql`SELECT count(*) AS n FROM assets WHERE ${where(p)}`,
      row: rowOf<{ n: number }>(),
    }),
  };
}

const TRASH = {
  all: trashStatements(false, false),
  type: trashStatements(true, false),
  query: trashStatements(false, true),
  typeQuery: trashStatements(true, true),
};

function trashOf(filter: TrashFilter) {
  const statements = filter.query
    ? filter.assetType
      ? TRASH.typeQuery
      : TRASH.query
    : filter.assetType
      ? TRASH.type
      : TRASH.all;
  const input = {
    tenantId: filter.tenantId,
    assetType: filter.assetType ?? null,
    pattern: filter.query ? containsPattern(filter.query) : null,
  };
  return { statements, input };
}

/** One keyset page of the trash, most recently trashed first. */
export function listTrash(
  db: Handle,
  filter: TrashFilter,
  take: number,
  after: KeysetPosition | undefined,
): Promise<AssetRow[]> {
  const { statements, input } = trashOf(filter);
  return after
    ? db.all(statements.after, { ...input, take, trashedAt: after.createdAt, id: after.id })
    : db.all(statements.first, { ...input, take });
}

/**
 * Counts the trashed assets matching a name query. Only used with `query` (other filters read
 * maintained counters): the trigram index finds the candidates, so the cost follows the matches.
 */
export async function countTrashMatches(db: Handle, filter: TrashFilter): Promise<number> {
  const { statements, input } = trashOf(filter);
  return (await db.first(statements.count, input))?.n ?? 0;
}
