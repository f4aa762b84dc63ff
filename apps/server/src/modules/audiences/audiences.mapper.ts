import type {
  AudienceVersion,
  AudienceVersionSummary,
  Metadata,
  RestoredAudience,
} from '@customer-api/contract';
import { iso, isoOrNull } from '../../lib/clock.js';
import type { PageRow } from '../pages/pages.service.js';
import type { AudienceRow } from './audiences.repo.js';
import type { VersionRow } from './versions.repo.js';

/** Maps a stored version to the API shape without `status` (as embedded in an audience). */
export function toVersionSummary(row: VersionRow): AudienceVersionSummary {
  return {
    versionId: row.id,
    audienceId: row.audienceId,
    versionNumber: row.versionNumber,
    isNewPageAgent: row.isNewPageAgent,
    supplementaryContext: row.supplementaryContext,
    queueDurationMs: row.queueDurationMs,
    createdAt: iso(row.createdAt),
    becameDraftAt: isoOrNull(row.becameDraftAt),
    cancelledAt: isoOrNull(row.cancelledAt),
    archivedAt: isoOrNull(row.archivedAt),
    obsoleteAt: isoOrNull(row.obsoleteAt),
    publishedAt: isoOrNull(row.publishedAt),
    queuedAt: isoOrNull(row.queuedAt),
  };
}

/** Maps a stored version to the single-version resource (with `status`). */
export function toApiVersion(row: VersionRow): AudienceVersion {
  return { ...toVersionSummary(row), status: row.status };
}

/** The page metadata overlaid by the audience's override (override fields win). */
export function effectiveMetadata(page: Pick<PageRow, 'metadata'>, override: Metadata | null): Metadata {
  return { ...(page.metadata ?? {}), ...(override ?? {}) };
}

/** Maps a stored audience to the API shape; `versions` must hold its latest and published versions. */
export function toApiAudience(
  row: AudienceRow,
  page: Pick<PageRow, 'metadata'>,
  versions: Map<string, VersionRow>,
): RestoredAudience {
  const latest = row.latestVersionId ? versions.get(row.latestVersionId) : undefined;
  const published = row.publishedVersionId ? versions.get(row.publishedVersionId) : undefined;
  return {
    audienceId: row.id,
    pageId: row.pageId,
    personId: row.personId,
    personRouteKey: row.personRouteKey,
    computedName: row.computedName,
    customName: row.customName,
    effectiveName: row.customName ?? row.computedName,
    isNewPageAgent: row.isNewPageAgent,
    status: row.status,
    supplementaryContext: row.supplementaryContext,
    actionFormIdOverride: row.actionFormIdOverride,
    actionFormInstructionsOverride: row.actionFormInstructionsOverride,
    actionUrlOverride: row.actionUrlOverride,
    latestVersion: latest ? toVersionSummary(latest) : null,
    publishedVersion: published ? toVersionSummary(published) : null,
    effectiveMetadata: effectiveMetadata(page, row.metadataOverride),
    ...(row.metadataOverride === null ? {} : { metadataOverride: row.metadataOverride }),
    createdAt: iso(row.createdAt),
    archivedAt: isoOrNull(row.archivedAt),
  };
}

/** Ids of the versions an audience embeds. */
export function embeddedVersionIds(rows: AudienceRow[]): string[] {
  return rows
    .flatMap((r) => [r.latestVersionId, r.publishedVersionId])
    .filter((id): id is string => id !== null);
}
