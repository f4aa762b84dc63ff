import type { Handle } from '../../db/port.js';
import { audiences } from '../../db/schema/index.js';
import {
  assignments,
  bool,
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

/** A stored audience. */
export type AudienceRow = typeof audiences.$inferSelect;
/** An audience as created (no versions yet, never archived). */
export type NewAudience = Omit<
  AudienceRow,
  'priorStatus' | 'latestVersionId' | 'publishedVersionId' | 'versionsCount' | 'archivedAt'
>;

const AUDIENCE = columns(audiences);

const insertAudienceStatement = statement({
  name: 'audience_insert',
  params: {
    id: text,
    tenantId: text,
    pageId: text,
    personId: nullable(text),
    personRouteKey: nullable(text),
    computedName: text,
    customName: nullable(text),
    isNewPageAgent: bool,
    status: text,
    supplementaryContext: nullable(text),
    actionFormIdOverride: nullable(text),
    actionFormInstructionsOverride: nullable(text),
    actionUrlOverride: nullable(text),
    metadataOverride: nullable(json),
    createdAt: timestamptz,
    updatedAt: timestamptz,
  },
  sql: (p) => sql`INSERT INTO audiences ${insertValues(audiences, p)} RETURNING ${AUDIENCE}`,
  row: rowOf<AudienceRow>(),
});

/** Inserts an audience. */
export async function insertAudience(db: Handle, row: NewAudience): Promise<AudienceRow> {
  const inserted = await db.first(insertAudienceStatement, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const SELECT_AUDIENCES = sql`SELECT ${AUDIENCE} FROM audiences`;

const audienceById = statement({
  name: 'audience_by_id',
  params: { tenantId: text, pageId: text, audienceId: text },
  sql: (p) =>
    sql`${SELECT_AUDIENCES} WHERE tenant_id = ${p.tenantId} AND page_id = ${p.pageId} AND id = ${p.audienceId}`,
  row: rowOf<AudienceRow>(),
});

const audienceByIdLocked = statement({
  name: 'audience_by_id_locked',
  params: { tenantId: text, pageId: text, audienceId: text },
  sql: (p) =>
    sql`${SELECT_AUDIENCES} WHERE tenant_id = ${p.tenantId} AND page_id = ${p.pageId} AND id = ${p.audienceId} FOR UPDATE`,
  row: rowOf<AudienceRow>(),
});

/** Finds an audience of a tenant under the given page; `forUpdate` locks it. */
export function findAudience(
  db: Handle,
  tenantId: string,
  pageId: string,
  audienceId: string,
  forUpdate = false,
): Promise<AudienceRow | undefined> {
  return db.first(forUpdate ? audienceByIdLocked : audienceById, { tenantId, pageId, audienceId });
}

const NEWEST_FIRST = sql`ORDER BY created_at DESC, id DESC`;

const listFirst = statement({
  name: 'audiences_list_first',
  params: { tenantId: text, pageId: text, take: int },
  sql: (p) =>
    sql`${SELECT_AUDIENCES} WHERE tenant_id = ${p.tenantId} AND page_id = ${p.pageId} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<AudienceRow>(),
});

const listAfter = statement({
  name: 'audiences_list_after',
  params: { tenantId: text, pageId: text, take: int, createdAt: timestamptz, id: text },
  sql: (p) =>
    sql`${SELECT_AUDIENCES} WHERE tenant_id = ${p.tenantId} AND page_id = ${p.pageId} AND ${keysetAfter(p)} ${NEWEST_FIRST} LIMIT ${p.take}`,
  row: rowOf<AudienceRow>(),
});

/** One keyset page of a page's audiences, newest first. */
export function listAudiences(
  db: Handle,
  tenantId: string,
  pageId: string,
  take: number,
  after?: KeysetPosition,
): Promise<AudienceRow[]> {
  return after
    ? db.all(listAfter, { tenantId, pageId, take, createdAt: after.createdAt, id: after.id })
    : db.all(listFirst, { tenantId, pageId, take });
}

/** An audience's lifecycle columns, as archive and restore leave them. */
export type AudienceLifecycle = Pick<AudienceRow, 'status' | 'priorStatus' | 'archivedAt' | 'updatedAt'>;

const setState = statement({
  name: 'audience_set_state',
  params: {
    tenantId: text,
    audienceId: text,
    status: text,
    priorStatus: nullable(text),
    archivedAt: nullable(timestamptz),
    updatedAt: timestamptz,
  },
  sql: (p) =>
    sql`UPDATE audiences SET ${assignments(audiences, {
      status: p.status,
      priorStatus: p.priorStatus,
      archivedAt: p.archivedAt,
      updatedAt: p.updatedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId} RETURNING ${AUDIENCE}`,
  row: rowOf<AudienceRow>(),
});

/** Writes a tenant's audience's lifecycle columns (archive, restore) and returns the audience. */
export async function setAudienceState(
  db: Handle,
  tenantId: string,
  audienceId: string,
  state: AudienceLifecycle,
): Promise<AudienceRow> {
  const row = await db.first(setState, { tenantId, audienceId, ...state });
  if (!row) throw new Error(`audience ${audienceId} vanished during update`);
  return row;
}

const setLatest = statement({
  name: 'audience_set_latest_version',
  params: { tenantId: text, audienceId: text, versionId: text, updatedAt: timestamptz },
  sql: (p) =>
    sql`UPDATE audiences SET ${assignments(audiences, {
      latestVersionId: p.versionId,
      updatedAt: p.updatedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId}`,
});

/** Points a tenant's audience at its newest version. */
export async function setLatestVersion(
  db: Handle,
  tenantId: string,
  audienceId: string,
  versionId: string,
  at: Date,
): Promise<void> {
  if ((await db.run(setLatest, { tenantId, audienceId, versionId, updatedAt: at })) === 0)
    throw new Error(`audience ${audienceId} vanished during update`);
}

const setPublished = statement({
  name: 'audience_set_published_version',
  params: { tenantId: text, audienceId: text, versionId: text, updatedAt: timestamptz },
  sql: (p) =>
    sql`UPDATE audiences SET ${assignments(audiences, {
      publishedVersionId: p.versionId,
      updatedAt: p.updatedAt,
    })}, status = 'published' WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId}`,
});

/** Points a tenant's audience at its published version, which makes it `published`. */
export async function setPublishedVersion(
  db: Handle,
  tenantId: string,
  audienceId: string,
  versionId: string,
  at: Date,
): Promise<void> {
  if ((await db.run(setPublished, { tenantId, audienceId, versionId, updatedAt: at })) === 0)
    throw new Error(`audience ${audienceId} vanished during update`);
}

/** The audience columns a conversation edits (see the messages module's `AudienceState`). */
export type AudienceEditable = Pick<AudienceRow, 'supplementaryContext' | 'metadataOverride'>;

const setEditable = statement({
  name: 'audience_set_editable',
  params: {
    tenantId: text,
    audienceId: text,
    supplementaryContext: nullable(text),
    metadataOverride: nullable(json),
    updatedAt: timestamptz,
  },
  sql: (p) =>
    sql`UPDATE audiences SET ${assignments(audiences, {
      supplementaryContext: p.supplementaryContext,
      metadataOverride: p.metadataOverride,
      updatedAt: p.updatedAt,
    })} WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId}`,
});

/**
 * Writes the fields a conversation edits on a tenant's audience (a message's applied changes, a
 * restored snapshot).
 */
export async function setEditableFields(
  db: Handle,
  tenantId: string,
  audienceId: string,
  fields: AudienceEditable,
  at: Date,
): Promise<void> {
  const input = {
    tenantId,
    audienceId,
    supplementaryContext: fields.supplementaryContext,
    metadataOverride: fields.metadataOverride,
    updatedAt: at,
  };
  if ((await db.run(setEditable, input)) === 0)
    throw new Error(`audience ${audienceId} vanished during update`);
}

const nextNumber = statement({
  name: 'audience_next_version_number',
  params: { tenantId: text, audienceId: text },
  sql: (p) => sql`UPDATE audiences SET versions_count = versions_count + 1
    WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId} RETURNING versions_count AS "n"`,
  row: rowOf<{ n: number }>(),
});

/** Adds one to a tenant's audience's version counter and returns the new version number. */
export async function nextVersionNumber(db: Handle, tenantId: string, audienceId: string): Promise<number> {
  const row = await db.first(nextNumber, { tenantId, audienceId });
  if (!row) throw new Error(`audience ${audienceId} vanished`);
  return row.n;
}
