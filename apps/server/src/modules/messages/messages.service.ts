import type {
  CreateMessageBodySchema,
  GetMessage,
  Message,
  RestoreMessageResult,
} from '@customer-api/contract';
import type { z } from 'zod';
import type { Tx } from '../../db/port.js';
import { iso } from '../../lib/clock.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import {
  assertPageLive,
  lockAudience,
  requireAudience,
  writeEditableFields,
} from '../audiences/audiences.service.js';
import type { ServiceDeps } from '../types.js';
import { type AudienceState, readField, stateOf } from './audience-state.js';
import { assertWithinLimits, boundedHistory } from './history-limits.js';
import { historyMessage, toChange, toMessage } from './message-view.js';
import * as repo from './messages.repo.js';
import { applyChanges } from './posted-changes.js';

/** Dependencies of message operations. */
export type MessagesDeps = Pick<ServiceDeps, 'db' | 'clock' | 'ids'>;

interface AudienceRef {
  tenantId: string;
  pageId: string;
  audienceId: string;
}
/**
 * An audience's conversation, messages oldest first, current context and unapplied (saved)
 * changes. `admit` hears the history's size before it is read (see {@link boundedHistory}).
 */
export async function getAudienceMessages(
  deps: MessagesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  admit: (bytes: number) => Promise<void> = async () => {},
): Promise<GetMessage> {
  const ref: AudienceRef = { tenantId, pageId, audienceId };
  const { page, audience } = await requireAudience(deps.db, ref.tenantId, ref.pageId, ref.audienceId);
  const conversation = await repo.findConversation(deps.db, ref.tenantId, ref.audienceId);
  const [rows, changes] = conversation ? await boundedHistory(deps.db, conversation, admit) : [[], []];
  const byMessage = new Map<string, repo.ChangeRow[]>();
  for (const change of changes) {
    const list = byMessage.get(change.messageId);
    if (list) list.push(change);
    else byMessage.set(change.messageId, [change]);
  }
  const state = stateOf(audience);
  const pageMeta = page.metadata;
  return {
    conversation: conversation
      ? {
          conversationId: conversation.id,
          audienceId: conversation.audienceId,
          publishedMessageId: conversation.publishedMessageId,
          createdAt: iso(conversation.createdAt),
          updatedAt: iso(conversation.updatedAt),
        }
      : null,
    messages: rows.map((m) => historyMessage(m, byMessage.get(m.id) ?? null)),
    context: {
      audienceId: audience.id,
      pageId: page.id,
      pageContext: page.pageContext,
      currentSupplementaryContext: readField(state, pageMeta, 'supplementaryContext'),
      currentMetaTitle: readField(state, pageMeta, 'metaTitle'),
      currentMetaDescription: readField(state, pageMeta, 'metaDescription'),
      currentMetaKeywords: readField(state, pageMeta, 'metaKeywords'),
    },
    pendingChanges: changes.filter((c) => c.status === 'saved').map(toChange),
  };
}

async function lockLiveAudience(tx: Tx, ref: AudienceRef) {
  const found = await requireAudience(tx, ref.tenantId, ref.pageId, ref.audienceId, true);
  assertPageLive(found.page);
  if (found.audience.archivedAt)
    throw new ConflictError(`Audience ${ref.audienceId} is archived; restore it first.`);
  return found;
}

async function conversationFor(deps: Pick<MessagesDeps, 'ids'>, tx: Tx, ref: AudienceRef, now: Date) {
  return (
    (await repo.findConversation(tx, ref.tenantId, ref.audienceId)) ??
    (await repo.insertConversation(tx, {
      id: deps.ids('conversation'),
      tenantId: ref.tenantId,
      audienceId: ref.audienceId,
      publishedMessageId: null,
      createdAt: now,
      updatedAt: now,
    }))
  );
}

/**
 * Appends a message. Its changes get ids and previous values; `applied` ones update the audience,
 * and the message then stores a snapshot of the audience's editable fields for restore.
 */
export async function createAudienceMessage(
  deps: MessagesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  body: z.output<typeof CreateMessageBodySchema>,
): Promise<Message> {
  const ref: AudienceRef = { tenantId, pageId, audienceId };
  return deps.db.transaction(async (tx) => {
    const { page, audience } = await lockLiveAudience(tx, ref);
    const now = deps.clock();
    const conversation = await conversationFor(deps, tx, ref, now);
    const seq = (await repo.lastSeq(tx, ref.tenantId, conversation.id)) + 1;
    const messageId = deps.ids('message');
    const { rows: changes, state } = applyChanges(
      deps,
      stateOf(audience),
      page.metadata,
      body.changes ?? [],
      {
        tenantId: ref.tenantId,
        messageId,
        audienceId: ref.audienceId,
        messageSeq: seq,
      },
    );
    const applied = changes.some((c) => c.status === 'applied');
    const row: repo.MessageRow = {
      id: messageId,
      tenantId: ref.tenantId,
      conversationId: conversation.id,
      audienceId: ref.audienceId,
      seq,
      role: body.role,
      content: body.content,
      timestampMs: now.getTime(),
      toolCalls: body.toolCalls ?? null,
      contentParts: body.contentParts ?? null,
      reasoning: body.reasoning ?? null,
      isInterrupted: body.isInterrupted ?? false,
      snapshot: applied ? state : null,
      jsonBytes: null,
      createdAt: now,
    };
    await repo.insertMessage(tx, row, changes);
    await assertWithinLimits(tx, row);
    if (applied) await writeEditableFields(tx, ref.tenantId, audience.id, state, now);
    await repo.touchConversation(tx, ref.tenantId, conversation.id, now);
    return toMessage(
      { ...row, hasSnapshot: row.snapshot !== null },
      { toolCalls: row.toolCalls, contentParts: row.contentParts },
      changes.length > 0 ? changes : null,
    );
  });
}

/** Rolls the audience back to a message's snapshot and marks later applied changes reverted. */
export async function restoreAudienceMessage(
  deps: MessagesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  messageId: string,
): Promise<RestoreMessageResult> {
  const ref = { tenantId, pageId, audienceId, messageId };
  return deps.db.transaction(async (tx) => {
    const { audience } = await lockLiveAudience(tx, ref);
    const message = await repo.findMessage(tx, ref.tenantId, ref.audienceId, ref.messageId);
    if (!message)
      throw new NotFoundError(`Message ${ref.messageId} not found under audience ${ref.audienceId}.`);
    if (message.snapshot === null)
      throw new ConflictError(`Message ${ref.messageId} has no snapshot to restore.`);
    const snapshot = message.snapshot as AudienceState;
    await writeEditableFields(tx, ref.tenantId, audience.id, snapshot, deps.clock());
    await repo.revertChangesAfter(tx, ref.tenantId, audience.id, message.seq);
    return { success: true, messageId: message.id };
  });
}

/**
 * Makes a message the conversation's published one and returns the history. Publishing the
 * published message again changes nothing (not even `updatedAt`).
 */
export async function publishAudienceMessage(
  deps: MessagesDeps,
  tenantId: string,
  pageId: string,
  audienceId: string,
  messageId: string,
  admit?: (bytes: number) => Promise<void>,
): Promise<GetMessage> {
  const ref = { tenantId, pageId, audienceId, messageId };
  await deps.db.transaction(async (tx) => {
    await requireAudience(tx, ref.tenantId, ref.pageId, ref.audienceId, true);
    const message = await repo.findMessage(tx, ref.tenantId, ref.audienceId, ref.messageId);
    const conversation = message && (await repo.findConversation(tx, ref.tenantId, ref.audienceId));
    if (!message || !conversation) {
      throw new NotFoundError(`Message ${ref.messageId} not found in audience ${ref.audienceId}.`);
    }
    if (conversation.publishedMessageId !== message.id) {
      await repo.setPublishedMessage(tx, ref.tenantId, conversation.id, message.id, deps.clock());
    }
  });
  return getAudienceMessages(deps, tenantId, pageId, audienceId, admit);
}

/** Locks an audience, and so its conversation, until `tx` ends, when it exists (`If-Match`, `http/conditional.ts`). */
export async function lockConversation(
  tx: Tx,
  tenantId: string,
  pageId: string,
  audienceId: string,
): Promise<void> {
  await lockAudience(tx, tenantId, pageId, audienceId);
}
