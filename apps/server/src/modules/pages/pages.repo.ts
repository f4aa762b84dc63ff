import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowQuery, selectList } from '../../db/fast.js';
import { pages } from '../../db/schema/index.js';
import type { KeysetPosition } from '../../lib/pagination.js';

/** A stored page. */
export type PageRow = typeof pages.$inferSelect;
/** Columns of a page that transitions change. */
export type PagePatch = Partial<Omit<PageRow, 'id' | 'tenantId' | 'createdAt'>>;

/** Inserts a page. */
export async function insertPage(db: Db, row: typeof pages.$inferInsert): Promise<PageRow> {
  const [inserted] = await db.insert(pages).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const PAGE_COLUMNS = selectList(pages);
const BY_ID = `SELECT ${PAGE_COLUMNS} FROM pages WHERE tenant_id = $1 AND id = $2`;
const BY_ID_FOR_UPDATE = `${BY_ID} FOR UPDATE`;

/**
 * Finds a tenant's page; `forUpdate` locks it until the transaction ends. Fixed statements: every
 * page and audience operation starts here.
 */
export async function findPage(
  db: Db,
  tenantId: string,
  pageId: string,
  forUpdate = false,
): Promise<PageRow | undefined> {
  const [name, text] = forUpdate ? ['page_by_id_locked', BY_ID_FOR_UPDATE] : ['page_by_id', BY_ID];
  return (await rowQuery(db)<PageRow>(name, text, [tenantId, pageId]))[0];
}

const LIST_LIVE = `SELECT ${PAGE_COLUMNS} FROM pages WHERE tenant_id = $1 AND deleted_at IS NULL`;
const LIST_ORDER = 'ORDER BY created_at DESC, id DESC LIMIT $2';
const LIST_FIRST = `${LIST_LIVE} ${LIST_ORDER}`;
const LIST_AFTER = `${LIST_LIVE} AND (created_at, id) < ($3::timestamptz, $4) ${LIST_ORDER}`;

/** One keyset page of a tenant's live (not deleted) pages, newest first. */
export async function listPages(
  db: Db,
  tenantId: string,
  take: number,
  after?: KeysetPosition,
): Promise<PageRow[]> {
  // The hottest read of the API: fixed prepared statements (see rowQuery).
  const query = rowQuery(db);
  return after
    ? query<PageRow>('pages_list_after', LIST_AFTER, [
        tenantId,
        take,
        after.createdAt.toISOString(),
        after.id,
      ])
    : query<PageRow>('pages_list_first', LIST_FIRST, [tenantId, take]);
}

/** Updates a tenant's page and returns it. */
export async function updatePage(
  db: Db,
  tenantId: string,
  pageId: string,
  patch: PagePatch,
): Promise<PageRow> {
  const [row] = await db
    .update(pages)
    .set(patch)
    .where(and(eq(pages.tenantId, tenantId), eq(pages.id, pageId)))
    .returning();
  if (!row) throw new Error(`page ${pageId} vanished during update`);
  return row;
}

/** Adds `delta` to a page's audience count (same transaction as the audience insert). */
export async function adjustAudiencesCount(db: Db, pageId: string, delta: number): Promise<void> {
  await db
    .update(pages)
    .set({ audiencesCount: sql`${pages.audiencesCount} + ${delta}` })
    .where(eq(pages.id, pageId));
}
