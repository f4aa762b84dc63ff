import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { rowQuery, selectList } from '../../db/fast.js';
import { audiences, audienceVersions } from '../../db/schema/index.js';
import { type KeysetPosition, keysetAfter } from '../../lib/pagination.js';

/** A stored audience. */
export type AudienceRow = typeof audiences.$inferSelect;
/** A stored audience version. */
export type VersionRow = typeof audienceVersions.$inferSelect;

/** Inserts an audience. */
export async function insertAudience(db: Db, row: typeof audiences.$inferInsert): Promise<AudienceRow> {
  const [inserted] = await db.insert(audiences).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const AUDIENCE_BY_ID = `SELECT ${selectList(audiences)} FROM audiences WHERE tenant_id = $1 AND page_id = $2 AND id = $3`;
const AUDIENCE_BY_ID_FOR_UPDATE = `${AUDIENCE_BY_ID} FOR UPDATE`;

/** Finds an audience of a tenant under the given page; `forUpdate` locks it. */
export async function findAudience(
  db: Db,
  tenantId: string,
  pageId: string,
  audienceId: string,
  forUpdate = false,
): Promise<AudienceRow | undefined> {
  const [name, text] = forUpdate
    ? ['audience_by_id_locked', AUDIENCE_BY_ID_FOR_UPDATE]
    : ['audience_by_id', AUDIENCE_BY_ID];
  return (await rowQuery(db)<AudienceRow>(name, text, [tenantId, pageId, audienceId]))[0];
}

/** One keyset page of a page's audiences, newest first. */
export async function listAudiences(
  db: Db,
  tenantId: string,
  pageId: string,
  take: number,
  after?: KeysetPosition,
): Promise<AudienceRow[]> {
  return db
    .select()
    .from(audiences)
    .where(
      and(
        eq(audiences.tenantId, tenantId),
        eq(audiences.pageId, pageId),
        after ? keysetAfter(audiences.createdAt, audiences.id, after) : undefined,
      ),
    )
    .orderBy(desc(audiences.createdAt), desc(audiences.id))
    .limit(take);
}

/** Updates an audience and returns it. */
export async function updateAudience(
  db: Db,
  audienceId: string,
  patch: Partial<Omit<AudienceRow, 'id' | 'tenantId' | 'pageId' | 'createdAt'>>,
): Promise<AudienceRow> {
  const [row] = await db.update(audiences).set(patch).where(eq(audiences.id, audienceId)).returning();
  if (!row) throw new Error(`audience ${audienceId} vanished during update`);
  return row;
}

/** Versions by id (for embedding latest/published versions in audiences). */
export async function findVersionsByIds(db: Db, ids: string[]): Promise<Map<string, VersionRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select().from(audienceVersions).where(inArray(audienceVersions.id, ids));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Finds a version of a tenant's audience. */
export async function findVersion(
  db: Db,
  tenantId: string,
  audienceId: string,
  versionId: string,
): Promise<VersionRow | undefined> {
  const rows = await db
    .select()
    .from(audienceVersions)
    .where(
      and(
        eq(audienceVersions.tenantId, tenantId),
        eq(audienceVersions.audienceId, audienceId),
        eq(audienceVersions.id, versionId),
      ),
    );
  return rows[0];
}

/** Inserts a version. */
export async function insertVersion(db: Db, row: typeof audienceVersions.$inferInsert): Promise<VersionRow> {
  const [inserted] = await db.insert(audienceVersions).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Updates a version and returns it. */
export async function updateVersion(
  db: Db,
  versionId: string,
  patch: Partial<Omit<VersionRow, 'id' | 'tenantId' | 'audienceId' | 'createdAt'>>,
): Promise<VersionRow> {
  const [row] = await db
    .update(audienceVersions)
    .set(patch)
    .where(eq(audienceVersions.id, versionId))
    .returning();
  if (!row) throw new Error(`version ${versionId} vanished during update`);
  return row;
}

/** Adds one to an audience's version counter and returns the new version number. */
export async function nextVersionNumber(db: Db, audienceId: string): Promise<number> {
  const [row] = await db
    .update(audiences)
    .set({ versionsCount: sql`${audiences.versionsCount} + 1` })
    .where(eq(audiences.id, audienceId))
    .returning({ n: audiences.versionsCount });
  if (!row) throw new Error(`audience ${audienceId} vanished`);
  return row.n;
}
