import type {
  CreatePageBodySchema,
  Page,
  Paginated,
  PaginationQuery,
  RestoredPage,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle, Tx } from '../../db/port.js';
import { type Clock, iso, isoOrNull } from '../../lib/clock.js';
import { adjustCounter, readCounter } from '../../lib/counters.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import { type CursorCodec, keysetPage } from '../../lib/pagination.js';
import * as repo from './pages.repo.js';

/** Dependencies of page operations. */
export interface PagesDeps {
  /** The request's handle (a transaction's when the request runs in one). */
  db: Handle;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
}

/** Counter scope of a tenant's live pages (listPages' totalCount). */
const PAGES_COUNTER = 'pages';

/** Maps a stored page to the API shape (restore's stricter shape is a subset of it). */
export function toApiPage(row: repo.PageRow): RestoredPage {
  return {
    pageId: row.id,
    name: row.name,
    title: row.title,
    pageContext: row.pageContext,
    brandId: row.brandId,
    pageType: row.pageType,
    status: row.status,
    audiencesCount: row.audiencesCount,
    actions: row.actions,
    actionCardWidgets: row.actionCardWidgets,
    footerLinks: row.footerLinks,
    scripts: row.scripts,
    ...(row.headerActionId === null ? {} : { headerActionId: row.headerActionId }),
    ...(row.metadata === null ? {} : { metadata: row.metadata }),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    archivedAt: isoOrNull(row.archivedAt),
    deletedAt: isoOrNull(row.deletedAt),
  };
}

/** Loads a tenant's page or throws 404 (another tenant's page is "not found", never "forbidden"). */
export async function requirePage(
  db: Handle,
  tenantId: string,
  pageId: string,
  forUpdate = false,
): Promise<repo.PageRow> {
  const row = await repo.findPage(db, tenantId, pageId, forUpdate);
  if (!row) throw new NotFoundError(`Page ${pageId} not found.`);
  return row;
}

/** Creates a draft page. */
export async function createPage(
  deps: PagesDeps,
  tenantId: string,
  body: z.output<typeof CreatePageBodySchema>,
): Promise<Page> {
  const now = deps.clock();
  const row = await deps.db.transaction(async (tx) => {
    const inserted = await repo.insertPage(tx, {
      id: deps.ids('page'),
      tenantId,
      name: body.name,
      title: body.title,
      pageContext: body.pageContext,
      brandId: body.brandId,
      pageType: body.pageType,
      status: 'draft',
      actions: body.actions ?? [],
      actionCardWidgets: body.actionCardWidgets ?? [],
      footerLinks: body.footerLinks ?? [],
      scripts: body.scripts ?? [],
      headerActionId: body.headerActionId ?? null,
      metadata: body.metadata ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await adjustCounter(tx, tenantId, PAGES_COUNTER, 1);
    return inserted;
  });
  return toApiPage(row);
}

/** Lists a tenant's pages (archived included, deleted excluded), newest first. */
export async function listPages(
  deps: PagesDeps,
  tenantId: string,
  query: PaginationQuery,
): Promise<Paginated<Page>> {
  return keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listPages' },
    query,
    fetch: (take, after) => repo.listPages(deps.db, tenantId, take, after),
    count: () => readCounter(deps.db, tenantId, PAGES_COUNTER),
    map: toApiPage,
  });
}

/** Reads one page (deleted pages too, so that they can be restored). */
export async function getPage(deps: PagesDeps, tenantId: string, pageId: string): Promise<Page> {
  return toApiPage(await requirePage(deps.db, tenantId, pageId));
}

/** Archives a page, remembering its status for restore. */
export async function archivePage(deps: PagesDeps, tenantId: string, pageId: string): Promise<Page> {
  return deps.db.transaction(async (tx) => {
    const page = await requirePage(tx, tenantId, pageId, true);
    if (page.deletedAt) throw new ConflictError(`Page ${pageId} is deleted; restore it first.`);
    if (page.archivedAt) throw new ConflictError(`Page ${pageId} is already archived.`);
    const now = deps.clock();
    return toApiPage(
      await repo.setPageState(tx, tenantId, pageId, {
        status: 'archived',
        priorStatus: page.status,
        archivedAt: now,
        deletedAt: page.deletedAt,
        updatedAt: now,
      }),
    );
  });
}

/** Soft-deletes a page (deletedAt set); it leaves listPages and its count. */
export async function deletePage(deps: PagesDeps, tenantId: string, pageId: string): Promise<Page> {
  return deps.db.transaction(async (tx) => {
    const page = await requirePage(tx, tenantId, pageId, true);
    if (page.deletedAt) throw new ConflictError(`Page ${pageId} is already deleted.`);
    const now = deps.clock();
    const row = await repo.setPageState(tx, tenantId, pageId, {
      status: page.status,
      priorStatus: page.priorStatus,
      archivedAt: page.archivedAt,
      deletedAt: now,
      updatedAt: now,
    });
    await adjustCounter(tx, tenantId, PAGES_COUNTER, -1);
    return toApiPage(row);
  });
}

/** Restores an archived or deleted page to the status it had before archiving. */
export async function restorePage(deps: PagesDeps, tenantId: string, pageId: string): Promise<RestoredPage> {
  return deps.db.transaction(async (tx) => {
    const page = await requirePage(tx, tenantId, pageId, true);
    if (!page.archivedAt && !page.deletedAt)
      throw new ConflictError(`Page ${pageId} is neither archived nor deleted.`);
    const status = page.status === 'archived' ? (page.priorStatus ?? 'draft') : page.status;
    const row = await repo.setPageState(tx, tenantId, pageId, {
      status,
      priorStatus: null,
      archivedAt: null,
      deletedAt: null,
      updatedAt: deps.clock(),
    });
    if (page.deletedAt) await adjustCounter(tx, tenantId, PAGES_COUNTER, 1);
    return toApiPage(row);
  });
}

export type { PageRow } from './pages.repo.js';

/** Adds `delta` to a page's audience count, in the transaction that adds or removes the audience. */
export async function countPageAudiences(
  tx: Tx,
  tenantId: string,
  pageId: string,
  delta: number,
): Promise<void> {
  await repo.adjustAudiencesCount(tx, tenantId, pageId, delta);
}

/** Locks a tenant's page until `tx` ends, when it exists (`If-Match`, `http/conditional.ts`). */
export async function lockPage(tx: Tx, tenantId: string, pageId: string): Promise<void> {
  await repo.findPage(tx, tenantId, pageId, true);
}
