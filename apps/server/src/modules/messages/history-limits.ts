import {
  MESSAGE_HISTORY_MAX_BYTES,
  MESSAGE_HISTORY_MAX_MESSAGES,
  MESSAGE_MAX_BYTES,
} from '@customer-api/contract';
import type { Handle, Tx } from '../../db/port.js';
import { ValidationError } from '../../lib/errors.js';
import * as repo from './history.repo.js';
import type { ChangeRow, ConversationRow } from './messages.repo.js';

// The limits of an audience's conversation (contract: MESSAGE_MAX_BYTES, MESSAGE_HISTORY_MAX_BYTES,
// MESSAGE_HISTORY_MAX_MESSAGES): checked when a message is written, applied again when it is read.

/**
 * Checks the history with the message just inserted as number `seq` (the audience row is locked,
 * so concurrent posts are checked one after the other) and stores the message's size for reads;
 * throwing rolls the insert back, so nothing is stored. A full history is 400 VALIDATION_ERROR,
 * as DESIGN fixes for every bound on writes.
 */
export async function assertWithinLimits(
  tx: Tx,
  message: { tenantId: string; conversationId: string; id: string; seq: number },
): Promise<void> {
  const { tenantId, conversationId, seq } = message;
  // Sequence numbers run 1, 2, 3… per conversation and messages are never deleted: seq counts them.
  if (seq > MESSAGE_HISTORY_MAX_MESSAGES) {
    throw ValidationError.of(
      'body',
      `The audience's message history is full: it holds ${grouped(MESSAGE_HISTORY_MAX_MESSAGES)} messages, the most an audience's history may hold. Continue the conversation in a new audience.`,
    );
  }
  const { totalBytes, messageBytes } = await repo.measureHistory(tx, tenantId, conversationId, seq);
  if (messageBytes > MESSAGE_MAX_BYTES) {
    throw ValidationError.of(
      'body',
      `The message takes ${bytes(messageBytes)} as stored; a message may take at most ${bytes(MESSAGE_MAX_BYTES)} (256 KiB), counting content, reasoning, tool calls with their results, content parts and changes with their previous values. Keep large tool results elsewhere and reference them.`,
    );
  }
  if (totalBytes > MESSAGE_HISTORY_MAX_BYTES) {
    throw ValidationError.of(
      'body',
      `The audience's message history is full: with this message (${bytes(messageBytes)}) it would take ${bytes(totalBytes)}, more than the ${bytes(MESSAGE_HISTORY_MAX_BYTES)} (4 MiB) an audience's history may hold. Continue the conversation in a new audience.`,
    );
  }
  await repo.storeMessageBytes(tx, tenantId, message.id, messageBytes);
}

/**
 * `4194304` as `4,194,304`. Not `toLocaleString`: its first call loads ICU's number formats, about
 * 10 ms of the event loop in the request that first reached a limit.
 */
const grouped = (n: number) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');
const bytes = (n: number) => `${grouped(n)} bytes`;

/**
 * The messages and changes a history read returns: everything written under the limits. A history
 * stored before they held (or past a lowered limit) is cut to its newest messages within the
 * budget, so no read grows with what a tenant managed to store. `admit` hears the size the
 * database measured before a row is read, and may refuse the read or make it wait its turn.
 */
export async function boundedHistory(
  db: Handle,
  conversation: ConversationRow,
  admit: (bytes: number) => Promise<void>,
): Promise<[repo.HistoryMessageRow[], ChangeRow[]]> {
  const within = await repo.firstSeqWithin(db, conversation.tenantId, conversation.id, {
    count: MESSAGE_HISTORY_MAX_MESSAGES,
    bytes: MESSAGE_HISTORY_MAX_BYTES,
  });
  if (within === undefined) return [[], []];
  await admit(within.bytes);
  return Promise.all([
    repo.listMessages(db, conversation.tenantId, conversation.id, within.seq),
    repo.listChanges(db, conversation.tenantId, conversation.audienceId, within.seq),
  ]);
}
