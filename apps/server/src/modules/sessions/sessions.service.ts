import type {
  AudienceSession,
  CreateAudienceSessionBodySchema,
  CreateInteractionBodySchema,
  Interaction,
  SessionInteractions,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Handle } from '../../db/port.js';
import { type Clock, iso } from '../../lib/clock.js';
import { NotFoundError } from '../../lib/errors.js';
import type { IdSource } from '../../lib/ids.js';
import * as repo from './sessions.repo.js';

/** Dependencies of audience session operations. */
export interface SessionsDeps {
  db: Handle;
  clock: Clock;
  ids: IdSource;
}

function toApiInteraction(row: repo.InteractionRow): Interaction {
  return {
    ...(row.componentContext === null ? {} : { componentContext: row.componentContext }),
    componentId: row.componentId,
    label: row.label,
    ...(row.responseText === null ? {} : { responseText: row.responseText }),
    groundingChunkIds: row.groundingChunkIds,
    options: row.options,
    timestamp: row.timestampMs,
  };
}

/** Starts a session on a tenant's audience (unknown or another tenant's audience: 404). */
export async function createAudienceSession(
  deps: SessionsDeps,
  tenantId: string,
  body: z.output<typeof CreateAudienceSessionBodySchema>,
): Promise<AudienceSession> {
  const audience = await repo.findAudiencePage(deps.db, tenantId, body.audienceId);
  if (!audience) throw new NotFoundError(`Audience ${body.audienceId} not found.`);
  const row = await repo.insertSession(deps.db, {
    id: deps.ids('session'),
    tenantId,
    audienceId: body.audienceId,
    pageId: audience.pageId,
    createdAt: deps.clock(),
  });
  return {
    audienceSessionId: row.id,
    audienceId: row.audienceId,
    pageId: row.pageId,
    createdAt: iso(row.createdAt),
  };
}

async function requireSession(db: Handle, tenantId: string, sessionId: string): Promise<repo.SessionRow> {
  const row = await repo.findSession(db, tenantId, sessionId);
  if (!row) throw new NotFoundError(`Audience session ${sessionId} not found.`);
  return row;
}

/** Records an interaction; `timestamp` defaults to the time of receipt (epoch milliseconds). */
export async function createAudienceSessionInteraction(
  deps: SessionsDeps,
  tenantId: string,
  sessionId: string,
  body: z.output<typeof CreateInteractionBodySchema>,
): Promise<Interaction> {
  await requireSession(deps.db, tenantId, sessionId);
  const now = deps.clock();
  const row = await repo.insertInteraction(deps.db, {
    id: deps.ids('interaction'),
    tenantId,
    sessionId,
    componentId: body.componentId,
    label: body.label,
    componentContext: body.componentContext ?? null,
    responseText: body.responseText ?? null,
    groundingChunkIds: body.groundingChunkIds ?? [],
    options: body.options ?? [],
    timestampMs: body.timestamp ?? now.getTime(),
    createdAt: now,
  });
  return toApiInteraction(row);
}

/**
 * A session's interactions, oldest first. An unknown session, or another tenant's, answers
 * `found: false` with no interactions (the specification's shape, not a 404).
 */
export async function getAudienceSessionInteractions(
  deps: SessionsDeps,
  tenantId: string,
  sessionId: string,
): Promise<SessionInteractions> {
  const session = await repo.findSession(deps.db, tenantId, sessionId);
  if (!session) return { found: false, interactions: [] };
  const rows = await repo.listInteractions(deps.db, tenantId, sessionId);
  return { found: true, interactions: rows.map(toApiInteraction) };
}
