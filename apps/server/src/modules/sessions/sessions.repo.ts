import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { audienceSessions, audiences, sessionInteractions } from '../../db/schema/index.js';

/** A stored audience session. */
export type SessionRow = typeof audienceSessions.$inferSelect;
/** A stored interaction. */
export type InteractionRow = typeof sessionInteractions.$inferSelect;

/** The page of a tenant's audience, or undefined when the tenant has no such audience. */
export async function findAudiencePage(
  db: Db,
  tenantId: string,
  audienceId: string,
): Promise<{ pageId: string } | undefined> {
  const rows = await db
    .select({ pageId: audiences.pageId })
    .from(audiences)
    .where(and(eq(audiences.tenantId, tenantId), eq(audiences.id, audienceId)));
  return rows[0];
}

/** Inserts a session. */
export async function insertSession(db: Db, row: typeof audienceSessions.$inferInsert): Promise<SessionRow> {
  const [inserted] = await db.insert(audienceSessions).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Finds a tenant's session. */
export async function findSession(
  db: Db,
  tenantId: string,
  sessionId: string,
): Promise<SessionRow | undefined> {
  const rows = await db
    .select()
    .from(audienceSessions)
    .where(and(eq(audienceSessions.tenantId, tenantId), eq(audienceSessions.id, sessionId)));
  return rows[0];
}

/** Inserts an interaction. */
export async function insertInteraction(
  db: Db,
  row: typeof sessionInteractions.$inferInsert,
): Promise<InteractionRow> {
  const [inserted] = await db.insert(sessionInteractions).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** A session's interactions, oldest first (by timestamp, then recording order). */
export async function listInteractions(
  db: Db,
  tenantId: string,
  sessionId: string,
): Promise<InteractionRow[]> {
  return db
    .select()
    .from(sessionInteractions)
    .where(and(eq(sessionInteractions.tenantId, tenantId), eq(sessionInteractions.sessionId, sessionId)))
    .orderBy(asc(sessionInteractions.timestampMs), asc(sessionInteractions.id));
}
