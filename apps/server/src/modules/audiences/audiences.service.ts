import type {
  Audience,
  CreateAudienceBodySchema,
  Paginated,
  PaginationQuery,
  RestoredAudience,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle, Tx } from '../../db/port.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { keysetPage } from '../../lib/pagination.js';
import { countPageAudiences, type PageRow, requirePage } from '../pages/pages.service.js';
import { findPersonById } from '../persons/persons.service.js';
import type { ServiceDeps } from '../types.js';
import { embeddedVersionIds, toApiAudience } from './audiences.mapper.js';
import * as repo from './audiences.repo.js';
import { findVersionsByIds } from './versions.repo.js';

/** Dependencies of audience operations. */
export type AudiencesDeps = Pick<ServiceDeps, 'db' | 'clock' | 'ids' | 'cursors'>;

/**
 * Loads a page and one of its audiences. An audience under another page, or another tenant's,
 * is 404 (specification: Restore endpoints).
 */
export async function requireAudience(
  db: Handle,
  tenantId: string,
  pageId: string,
  audienceId: string,
  forUpdate = false,
): Promise<{ page: PageRow; audience: repo.AudienceRow }> {
  const page = await requirePage(db, tenantId, pageId);
  const audience = await repo.findAudience(db, tenantId, pageId, audienceId, forUpdate);
  if (!audience) throw new NotFoundError(`Audience ${audienceId} not found under page ${pageId}.`);
  return { page, audience };
}

/** 409 unless the page accepts changes (neither archived nor deleted). */
export function assertPageLive(page: PageRow): void {
  if (page.deletedAt) throw new ConflictError(`Page ${page.id} is deleted; restore it first.`);
  if (page.archivedAt) throw new ConflictError(`Page ${page.id} is archived; restore it first.`);
}

/**
 * 404 unless `personId` names a person of the tenant. Another tenant's person is "not found" like
 * an unknown one: anything else would confirm that the id exists.
 */
async function requirePersonRef(db: Handle, tenantId: string, personId: string): Promise<void> {
  if (!(await findPersonById(db, tenantId, personId)))
    throw new NotFoundError(`Person ${personId} (body field personId) not found.`);
}

async function present(db: Handle, page: PageRow, row: repo.AudienceRow): Promise<RestoredAudience> {
  return toApiAudience(row, page, await findVersionsByIds(db, row.tenantId, embeddedVersionIds([row])));
}

/** Creates a draft audience under a live page. */
export async function createAudience(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  body: z.output<typeof CreateAudienceBodySchema>,
): Promise<Audience> {
  return deps.db.transaction(async (tx) => {
    const page = await requirePage(tx, tenantId, pageId, true);
    assertPageLive(page);
    if (body.personId !== undefined) await requirePersonRef(tx, tenantId, body.personId);
    const now = deps.clock();
    const who = body.personRouteKey ?? body.personId;
    const row = await repo.insertAudience(tx, {
      id: deps.ids('audience'),
      tenantId,
      pageId,
      personId: body.personId ?? null,
      personRouteKey: body.personRouteKey ?? null,
      computedName: who ? `${page.name} · ${who}` : `${page.name} · Audience ${page.audiencesCount + 1}`,
      customName: body.customName ?? null,
      isNewPageAgent: body.isNewPageAgent ?? false,
      status: 'draft',
      supplementaryContext: body.supplementaryContext ?? null,
      actionFormIdOverride: body.actionFormIdOverride ?? null,
      actionFormInstructionsOverride: body.actionFormInstructionsOverride ?? null,
      actionUrlOverride: body.actionUrlOverride ?? null,
      metadataOverride: body.metadataOverride ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await countPageAudiences(tx, tenantId, pageId, 1);
    return toApiAudience(row, page, new Map());
  });
}

/** Lists a page's audiences (archived included), newest first; totalCount is the page's audiencesCount. */
export async function listAudiences(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  query: PaginationQuery,
): Promise<Paginated<Audience>> {
  const page = await requirePage(deps.db, tenantId, pageId);
  const rows = await keysetPage({
    cursors: deps.cursors,
    binding: { tenantId, operation: 'listAudiences', filters: { pageId } },
    query,
    fetch: (take, after) => repo.listAudiences(deps.db, tenantId, pageId, take, after),
    count: () => page.audiencesCount,
    map: (row) => row,
  });
  // The versions an audience embeds, read for the page's rows at once.
  const versions = await findVersionsByIds(deps.db, tenantId, embeddedVersionIds(rows.items));
  return { ...rows, items: rows.items.map((row) => toApiAudience(row, page, versions)) };
}

/** Reads one audience of a page. */
export async function getAudience(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
): Promise<Audience> {
  const { page, audience } = await requireAudience(deps.db, tenantId, pageId, audienceId);
  return present(deps.db, page, audience);
}

/** Archives an audience, remembering its status for restore. */
export async function archiveAudience(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
): Promise<Audience> {
  return deps.db.transaction(async (tx) => {
    const { page, audience } = await requireAudience(tx, tenantId, pageId, audienceId, true);
    if (audience.archivedAt) throw new ConflictError(`Audience ${audienceId} is already archived.`);
    const now = deps.clock();
    const row = await repo.setAudienceState(tx, tenantId, audienceId, {
      status: 'archived',
      priorStatus: audience.status,
      archivedAt: now,
      updatedAt: now,
    });
    return present(tx, page, row);
  });
}

/** Restores an archived audience of a live page to the status it had before archiving. */
export async function restoreAudience(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
): Promise<RestoredAudience> {
  return deps.db.transaction(async (tx) => {
    const { page, audience } = await requireAudience(tx, tenantId, pageId, audienceId, true);
    if (!audience.archivedAt) throw new ConflictError(`Audience ${audienceId} is not archived.`);
    assertPageLive(page);
    const row = await repo.setAudienceState(tx, tenantId, audienceId, {
      status: audience.priorStatus ?? 'draft',
      priorStatus: null,
      archivedAt: null,
      updatedAt: deps.clock(),
    });
    return present(tx, page, row);
  });
}

export type { AudienceEditable, AudienceRow } from './audiences.repo.js';

/**
 * Writes the fields a conversation edits on an audience (a message's applied changes, a restored
 * snapshot), in the caller's transaction.
 */
export async function writeEditableFields(
  tx: Tx,
  tenantId: string,
  audienceId: string,
  fields: repo.AudienceEditable,
  at: Date,
): Promise<void> {
  await repo.setEditableFields(tx, tenantId, audienceId, fields, at);
}

/**
 * Locks a tenant's audience until `tx` ends, when it exists: what every change of the audience,
 * its versions and its conversation locks first (`If-Match`, `http/conditional.ts`).
 */
export async function lockAudience(
  tx: Tx,
  tenantId: string,
  pageId: string,
  audienceId: string,
): Promise<void> {
  await repo.findAudience(tx, tenantId, pageId, audienceId, true);
}
