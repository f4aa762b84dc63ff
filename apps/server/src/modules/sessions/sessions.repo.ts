import type { Handle } from '../../db/port.js';
import { audienceSessions, sessionInteractions } from '../../db/schema/index.js';
import {
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

/** A stored audience session. */
export type SessionRow = typeof audienceSessions.$inferSelect;
/** A stored interaction. */
export type InteractionRow = typeof sessionInteractions.$inferSelect;

const SESSION = columns(audienceSessions);
const INTERACTION = columns(sessionInteractions);

const audiencePage = statement({
  name: 'audience_page_id',
  params: { tenantId: text, audienceId: text },
  sql: (p) =>
    sql`SELECT page_id AS "pageId" FROM audiences WHERE tenant_id = ${p.tenantId} AND id = ${p.audienceId}`,
  row: rowOf<{ pageId: string }>(),
});

/** The page of a tenant's audience, or undefined when the tenant has no such audience. */
export function findAudiencePage(
  db: Handle,
  tenantId: string,
  audienceId: string,
): Promise<{ pageId: string } | undefined> {
  return db.first(audiencePage, { tenantId, audienceId });
}

const insertSessionRow = statement({
  name: 'audience_session_insert',
  params: { id: text, tenantId: text, audienceId: text, pageId: text, createdAt: timestamptz },
  sql: (p) => sql`INSERT INTO audience_sessions ${insertValues(audienceSessions, p)} RETURNING ${SESSION}`,
  row: rowOf<SessionRow>(),
});

/** Inserts a session. */
export async function insertSession(db: Handle, row: SessionRow): Promise<SessionRow> {
  const inserted = await db.first(insertSessionRow, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const sessionById = statement({
  name: 'audience_session_by_id',
  params: { tenantId: text, sessionId: text },
  sql: (p) =>
    sql`SELECT ${SESSION} FROM audience_sessions WHERE tenant_id = ${p.tenantId} AND id = ${p.sessionId}`,
  row: rowOf<SessionRow>(),
});

/** Finds a tenant's session. */
export function findSession(
  db: Handle,
  tenantId: string,
  sessionId: string,
): Promise<SessionRow | undefined> {
  return db.first(sessionById, { tenantId, sessionId });
}

const insertInteractionRow = statement({
  name: 'session_interaction_insert',
  params: {
    id: text,
    tenantId: text,
    sessionId: text,
    componentId: text,
    label: text,
    componentContext: nullable(text),
    responseText: nullable(text),
    groundingChunkIds: textArray,
    options: textArray,
    timestampMs: int,
    createdAt: timestamptz,
  },
  sql: (p) =>
    sql`INSERT INTO session_interactions ${insertValues(sessionInteractions, p)} RETURNING ${INTERACTION}`,
  row: rowOf<InteractionRow>(),
});

/** Inserts an interaction. */
export async function insertInteraction(db: Handle, row: InteractionRow): Promise<InteractionRow> {
  const inserted = await db.first(insertInteractionRow, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

const interactions = statement({
  name: 'session_interactions_of_session',
  params: { tenantId: text, sessionId: text },
  sql: (p) => sql`SELECT ${INTERACTION} FROM session_interactions
    WHERE tenant_id = ${p.tenantId} AND session_id = ${p.sessionId}
    ORDER BY timestamp_ms ASC, id ASC`,
  row: rowOf<InteractionRow>(),
});

/** A session's interactions, oldest first (by timestamp, then recording order). */
export function listInteractions(db: Handle, tenantId: string, sessionId: string): Promise<InteractionRow[]> {
  return db.all(interactions, { tenantId, sessionId });
}
