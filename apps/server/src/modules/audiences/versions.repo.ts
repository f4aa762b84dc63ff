import type { Handle } from '../../db/port.js';
import { audienceVersions } from '../../db/schema/index.js';
import {
  bool,
  columns,
  insertValues,
  int,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../../db/sql.js';

/** A stored audience version. */
export type VersionRow = typeof audienceVersions.$inferSelect;
/** A version as created (a draft: none of the later transitions' instants). */
export type NewVersion = Omit<
  VersionRow,
  'cancelledAt' | 'archivedAt' | 'obsoleteAt' | 'publishedAt' | 'queuedAt'
>;

const VERSION = columns(audienceVersions);

const byIds = statement({
  name: 'audience_versions_by_ids',
  params: { tenantId: text, ids: textArray },
  sql: (p) =>
    sql`SELECT ${VERSION} FROM audience_versions WHERE tenant_id = ${p.tenantId} AND id = ANY(${p.ids}::text[])`,
  row: rowOf<VersionRow>(),
});

/** A tenant's versions by id (for embedding latest/published versions in audiences). */
export async function findVersionsByIds(
  db: Handle,
  tenantId: string,
  ids: string[],
): Promise<Map<string, VersionRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all(byIds, { tenantId, ids });
  return new Map(rows.map((r) => [r.id, r]));
}

const byId = statement({
  name: 'audience_version_by_id',
  params: { tenantId: text, audienceId: text, versionId: text },
  sql: (p) =>
    sql`SELECT ${VERSION} FROM audience_versions
      WHERE tenant_id = ${p.tenantId} AND audience_id = ${p.audienceId} AND id = ${p.versionId}`,
  row: rowOf<VersionRow>(),
});

/** Finds a version of a tenant's audience. */
export function findVersion(
  db: Handle,
  tenantId: string,
  audienceId: string,
  versionId: string,
): Promise<VersionRow | undefined> {
  return db.first(byId, { tenantId, audienceId, versionId });
}

const insert = statement({
  name: 'audience_version_insert',
  params: {
    id: text,
    tenantId: text,
    pageId: text,
    audienceId: text,
    versionNumber: int,
    status: text,
    isNewPageAgent: bool,
    supplementaryContext: nullable(text),
    queueDurationMs: nullable(int),
    createdAt: timestamptz,
    becameDraftAt: nullable(timestamptz),
  },
  sql: (p) => sql`INSERT INTO audience_versions ${insertValues(audienceVersions, p)} RETURNING ${VERSION}`,
  row: rowOf<VersionRow>(),
});

/** Inserts a version. */
export async function insertVersion(db: Handle, row: NewVersion): Promise<VersionRow> {
  const inserted = await db.first(insert, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const TRANSITION = { tenantId: text, versionId: text, at: timestamptz };

const archive = statement({
  name: 'audience_version_archive',
  params: TRANSITION,
  sql: (
    p,
  ) => sql`UPDATE audience_versions SET status = 'archived', archived_at = ${p.at}, obsolete_at = ${p.at}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.versionId} RETURNING ${VERSION}`,
  row: rowOf<VersionRow>(),
});

const publish = statement({
  name: 'audience_version_publish',
  params: TRANSITION,
  sql: (p) => sql`UPDATE audience_versions SET status = 'published', published_at = ${p.at}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.versionId} RETURNING ${VERSION}`,
  row: rowOf<VersionRow>(),
});

const cancel = statement({
  name: 'audience_version_cancel',
  params: TRANSITION,
  sql: (p) => sql`UPDATE audience_versions SET status = 'cancelled', cancelled_at = ${p.at}
    WHERE tenant_id = ${p.tenantId} AND id = ${p.versionId} RETURNING ${VERSION}`,
  row: rowOf<VersionRow>(),
});

/** The transitions of a version, each one fixed UPDATE: what it sets besides its instant. */
const TRANSITIONS = { archive, publish, cancel };

/**
 * Moves a tenant's version on at `at` and returns it: `archive` (published before, now obsolete: archived
 * and obsolete at `at`), `publish` (published at `at`), `cancel` (cancelled at `at`).
 */
export async function transitionVersion(
  db: Handle,
  tenantId: string,
  versionId: string,
  transition: keyof typeof TRANSITIONS,
  at: Date,
): Promise<VersionRow> {
  const row = await db.first(TRANSITIONS[transition], { tenantId, versionId, at });
  if (!row) throw new Error(`version ${versionId} vanished during update`);
  return row;
}
