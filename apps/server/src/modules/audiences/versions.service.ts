import type { AudienceVersion, CreateAudienceVersionBodySchema } from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle, Tx } from '../../db/port.js';
import { recordVersionEvent } from '../../delivery/outbox.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { toApiVersion } from './audiences.mapper.js';
import { nextVersionNumber, setLatestVersion, setPublishedVersion } from './audiences.repo.js';
import type { AudiencesDeps } from './audiences.service.js';
import { assertPageLive, requireAudience } from './audiences.service.js';
import * as repo from './versions.repo.js';

/** Statuses from which a version can still be cancelled (it was never published). */
const CANCELLABLE = new Set(['draft', 'queued', 'pending', 'processing']);

interface VersionRef {
  tenantId: string;
  pageId: string;
  audienceId: string;
  versionId: string;
}

async function lockForChange(tx: Tx, ref: Omit<VersionRef, 'versionId'>) {
  const found = await requireAudience(tx, ref.tenantId, ref.pageId, ref.audienceId, true);
  assertPageLive(found.page);
  if (found.audience.archivedAt)
    throw new ConflictError(`Audience ${ref.audienceId} is archived; restore it first.`);
  return found;
}

async function requireVersion(db: Handle, ref: VersionRef): Promise<repo.VersionRow> {
  const row = await repo.findVersion(db, ref.tenantId, ref.audienceId, ref.versionId);
  if (!row) throw new NotFoundError(`Version ${ref.versionId} not found under audience ${ref.audienceId}.`);
  return row;
}

const subject = (row: repo.VersionRow) => ({
  tenantId: row.tenantId,
  pageId: row.pageId,
  audienceId: row.audienceId,
  versionId: row.id,
  status: row.status,
  createdAt: row.createdAt,
});

/** Creates the next draft version of an audience and records `page.version.created`. */
export async function createAudienceVersion(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  body: z.output<typeof CreateAudienceVersionBodySchema>,
): Promise<AudienceVersion> {
  const ref = { tenantId, pageId, audienceId };
  return deps.db.transaction(async (tx) => {
    const { audience } = await lockForChange(tx, ref);
    const now = deps.clock();
    const row = await repo.insertVersion(tx, {
      id: deps.ids('version'),
      tenantId: ref.tenantId,
      pageId: ref.pageId,
      audienceId: ref.audienceId,
      versionNumber: await nextVersionNumber(tx, ref.tenantId, ref.audienceId),
      status: 'draft',
      isNewPageAgent: audience.isNewPageAgent,
      supplementaryContext: body.supplementaryContext ?? audience.supplementaryContext,
      queueDurationMs: null,
      createdAt: now,
      becameDraftAt: now,
    });
    await setLatestVersion(tx, ref.tenantId, ref.audienceId, row.id, now);
    await recordVersionEvent(tx, deps, 'page.version.created', subject(row));
    return toApiVersion(row);
  });
}

/** Reads one version of an audience. */
export async function getAudienceVersion(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  versionId: string,
): Promise<AudienceVersion> {
  const ref = { tenantId, pageId, audienceId, versionId };
  await requireAudience(deps.db, ref.tenantId, ref.pageId, ref.audienceId);
  return toApiVersion(await requireVersion(deps.db, ref));
}

/**
 * Publishes a draft: the previously published version is archived (and made obsolete), the
 * audience points at the new one, and both events are recorded in the same transaction.
 */
export async function publishAudienceVersion(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  versionId: string,
): Promise<AudienceVersion> {
  const ref = { tenantId, pageId, audienceId, versionId };
  return deps.db.transaction(async (tx) => {
    const { audience } = await lockForChange(tx, ref);
    const version = await requireVersion(tx, ref);
    if (version.status !== 'draft')
      throw new ConflictError(`Version ${ref.versionId} is ${version.status}, not a draft.`);
    const now = deps.clock();
    if (audience.publishedVersionId) {
      const previous = await repo.transitionVersion(
        tx,
        ref.tenantId,
        audience.publishedVersionId,
        'archive',
        now,
      );
      await recordVersionEvent(tx, deps, 'page.version.archived', subject(previous));
    }
    const published = await repo.transitionVersion(tx, ref.tenantId, version.id, 'publish', now);
    await setPublishedVersion(tx, ref.tenantId, ref.audienceId, version.id, now);
    await recordVersionEvent(tx, deps, 'page.version.published', subject(published));
    return toApiVersion(published);
  });
}

/** Cancels a version that was never published and records `page.version.cancelled`. */
export async function cancelAudienceVersion(
  deps: AudiencesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  versionId: string,
): Promise<AudienceVersion> {
  const ref = { tenantId, pageId, audienceId, versionId };
  return deps.db.transaction(async (tx) => {
    await requireAudience(tx, ref.tenantId, ref.pageId, ref.audienceId, true);
    const version = await requireVersion(tx, ref);
    if (!CANCELLABLE.has(version.status)) {
      throw new ConflictError(`Version ${ref.versionId} is ${version.status} and cannot be cancelled.`);
    }
    const cancelled = await repo.transitionVersion(tx, ref.tenantId, version.id, 'cancel', deps.clock());
    await recordVersionEvent(tx, deps, 'page.version.cancelled', subject(cancelled));
    return toApiVersion(cancelled);
  });
}
