import type { RestoredPage } from '@customer-api/contract';
import type { Handle } from '../../db/port.js';
import { pages } from '../../db/schema/index.js';
import {
  assignments,
  columns,
  insertValues,
  int,
  json,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  timestamptz,
} from '../../db/sql.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored page. */
export type PageRow = typeof pages.$inferSelect;
/** A page as created. */
export type NewPage = Omit<PageRow, 'priorStatus' | 'audiencesCount' | 'archivedAt' | 'deletedAt'>;

const PAGE = columns(pages);

const insert = statement({
  name: 'page_insert',
  params: {
    id: text,
    tenantId: text,
    name: text,
    title: text,
    pageContext: text,
    brandId: text,
    pageType: text,
    status: text,
    actions: json,
    actionCardWidgets: json,
    footerLinks: json,
    scripts: json,
    headerActionId: nullable(text),
    metadata: nullable(json),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO pages ${insertValues(pages, p)} RETURNING ${PAGE}`,
  row: rowOf<PageRow>(),
});

/** Inserts a page. */
export async function insertPage(db: Handle, row: NewPage): Promise<PageRow> {
  const inserted = await db.first(insert, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const byId = statement({
  name: 'page_by_id',
  params: { tenantId: text, pageId: text },
  sql: (p) => sql`SELECT ${PAGE} FROM pages WHERE tenant_id = ${p.tenantId} AND id = ${p.pageId}`,
  row: rowOf<PageRow>(),
});

const byIdLocked = statement({
  name: 'page_by_id_locked',
  params: { tenantId: text, pageId: text },
  sql: (p) => sql`SELECT ${PAGE} FROM pages WHERE tenant_id = ${p.tenantId} AND id = ${p.pageId} FOR UPDATE`,
  row: rowOf<PageRow>(),
});

/**
 * Finds a tenant's page; `forUpdate` locks it until the transaction ends (every page and audience
 * operation starts here).
 */
export function findPage(
  db: Handle,
  tenantId: string,
  pageId: string,
  forUpdate = false,
): Promise<PageRow | undefined> {
  return db.first(forUpdate ? byIdLocked : byId, { tenantId, pageId });
}

const LIVE = sql`SELECT ${PAGE} FROM pages WHERE deleted_at IS NULL`;
const NEWEST_FIRST = sql`ORDER BY created_at DESC, id DESC`;

/** The first page of `listPages` (the benchmarks send it directly too). */
export const listPagesFirstStatement = statement({
  name: 'pages_list_first',
  params: { tenantId: text, take: int },
  sql: (p) => sql`${LIVE} AND tenant_id = ${p.tenantId} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<PageRow>(),
});

const listAfter = statement({
  name: 'pages_list_after',
  params: { tenantId: text, take: int, createdAt: timestamptz, id: text },
  sql: (p) =>
    sql`${LIVE} AND tenant_id = ${p.tenantId} AND ${keysetAfter(p)} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<PageRow>(),
});

/** One keyset page of a tenant's live (not deleted) pages, newest first. */
export function listPages(
  db: Handle,
  tenantId: string,
  take: number,
  after?: KeysetPosition,
): Promise<PageRow[]> {
  return after
    ? db.all(listAfter, { tenantId, take, createdAt: after.createdAt, id: after.id })
    : db.all(listPagesFirstStatement, { tenantId, take });
}

/** Sets a page's status columns (archive, delete, restore) and returns it. */
const setState = statement({
  name: 'page_set_state',
  params: {
    tenantId: text,
    pageId: text,
    status: text,
    priorStatus: nullable(text),
    archivedAt: nullable(timestamptz),
    deletedAt: nullable(timestamptz),
    updatedAt: timestamptz,
  },
  sql: (p) =>
    sql`UPDATE pages SET ${assignments(pages, {
      status: p.status,
      priorStatus: p.priorStatus,
      archivedAt: p.archivedAt,
      deletedAt: p.deletedAt,
      updatedAt: p.updatedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.pageId} RETURNING ${PAGE}`,
  row: rowOf<PageRow>(),
});

/** A page's lifecycle columns, as archive, delete and restore leave them. */
export interface PageState {
  status: RestoredPage['status'];
  priorStatus: RestoredPage['status'] | null;
  archivedAt: Date | null;
  deletedAt: Date | null;
  updatedAt: Date;
}

/** Writes a tenant's page's lifecycle columns and returns the page. */
export async function setPageState(
  db: Handle,
  tenantId: string,
  pageId: string,
  state: PageState,
): Promise<PageRow> {
  const row = await db.first(setState, { tenantId, pageId, ...state });
  if (!row) throw new Error(`page ${pageId} vanished during update`);
  return row;
}

const adjustAudiences = statement({
  name: 'page_adjust_audiences_count',
  params: { tenantId: text, pageId: text, delta: int },
  sql: (p) => sql`UPDATE pages SET audiences_count = audiences_count + ${p.delta}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.pageId}`,
});

/** Adds `delta` to a tenant's page's audience count (same transaction as the audience insert). */
export async function adjustAudiencesCount(
  db: Handle,
  tenantId: string,
  pageId: string,
  delta: number,
): Promise<void> {
  await db.run(adjustAudiences, { tenantId, pageId, delta });
}
