import { and, asc, eq, gt, max } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { conversations, messageChanges, messages } from '../../db/schema/index.js';

/** A stored conversation. */
export type ConversationRow = typeof conversations.$inferSelect;
/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;
/** A stored change. */
export type ChangeRow = typeof messageChanges.$inferSelect;

/** The conversation of an audience, if it has one. */
export async function findConversation(
  db: Db,
  tenantId: string,
  audienceId: string,
): Promise<ConversationRow | undefined> {
  const rows = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.tenantId, tenantId), eq(conversations.audienceId, audienceId)));
  return rows[0];
}

/** Inserts a conversation. */
export async function insertConversation(db: Db, row: ConversationRow): Promise<ConversationRow> {
  const [inserted] = await db.insert(conversations).values(row).returning();
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/** Marks a conversation as updated. */
export async function touchConversation(db: Db, conversationId: string, at: Date): Promise<ConversationRow> {
  const [row] = await db
    .update(conversations)
    .set({ updatedAt: at })
    .where(eq(conversations.id, conversationId))
    .returning();
  if (!row) throw new Error(`conversation ${conversationId} vanished`);
  return row;
}

/** Messages of a conversation, oldest first. */
export async function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  return db
    .select()
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(asc(messages.seq));
}

/** Changes of an audience's messages, in message and position order. */
export async function listChanges(db: Db, tenantId: string, audienceId: string): Promise<ChangeRow[]> {
  return db
    .select()
    .from(messageChanges)
    .where(and(eq(messageChanges.tenantId, tenantId), eq(messageChanges.audienceId, audienceId)))
    .orderBy(asc(messageChanges.messageSeq), asc(messageChanges.position));
}

/** Highest message sequence number of a conversation (0 when empty). */
export async function lastSeq(db: Db, conversationId: string): Promise<number> {
  const [row] = await db
    .select({ seq: max(messages.seq) })
    .from(messages)
    .where(eq(messages.conversationId, conversationId));
  return row?.seq ?? 0;
}

/** Inserts a message with its changes. */
export async function insertMessage(db: Db, row: MessageRow, changes: ChangeRow[]): Promise<void> {
  await db.insert(messages).values(row);
  if (changes.length > 0) await db.insert(messageChanges).values(changes);
}

/** Finds a message of a tenant's audience. */
export async function findMessage(
  db: Db,
  tenantId: string,
  audienceId: string,
  messageId: string,
): Promise<MessageRow | undefined> {
  const rows = await db
    .select()
    .from(messages)
    .where(
      and(eq(messages.tenantId, tenantId), eq(messages.audienceId, audienceId), eq(messages.id, messageId)),
    );
  return rows[0];
}

/** Marks applied changes of messages after `seq` as reverted. */
export async function revertChangesAfter(db: Db, audienceId: string, seq: number): Promise<void> {
  await db
    .update(messageChanges)
    .set({ status: 'reverted' })
    .where(
      and(
        eq(messageChanges.audienceId, audienceId),
        gt(messageChanges.messageSeq, seq),
        eq(messageChanges.status, 'applied'),
      ),
    );
}
