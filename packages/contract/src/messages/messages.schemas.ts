import { z } from 'zod';
import { ITEM_BOUNDS, MAX_BYTES_KEYWORD, TEXT_BOUNDS } from '../common/bounds.js';
import { TimestampSchema } from '../common/primitives.js';
import { ChangeSchema, NewChangeSchema } from './changes.schemas.js';
import { MESSAGE_MAX_BYTES } from './message-limits.js';
import {
  ContentPartSchema,
  NewContentPartSchema,
  NewToolCallSchema,
  ToolCallSchema,
} from './parts.schemas.js';

/** Message authors. */
export const MessageRoleSchema = z.enum(['user', 'assistant']);

/** A message of an audience conversation. `timestamp` is in epoch milliseconds. */
export const MessageSchema = z
  .object({
    messageId: z.string(),
    role: MessageRoleSchema,
    content: z.string(),
    timestamp: z.number().describe('Epoch milliseconds.'),
    hasSnapshot: z
      .boolean()
      .describe('True when restoreAudienceMessage can roll the audience back to this message.'),
    toolCalls: z.array(ToolCallSchema).nullable(),
    changes: z.array(ChangeSchema).nullable(),
    contentParts: z.array(ContentPartSchema).nullable(),
    reasoning: z.string().nullable(),
    isInterrupted: z.boolean(),
  })
  .strict()
  .meta({
    id: 'Message',
    description:
      'A message of an audience conversation: at most 256 KiB (262,144 bytes) as JSON, its changes included.',
  });
/** A message of an audience conversation. */
export type Message = z.infer<typeof MessageSchema>;

/** The conversation of an audience. */
export const ConversationSchema = z
  .object({
    conversationId: z.string(),
    audienceId: z.string(),
    publishedMessageId: z.string().nullable(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .strict()
  .meta({ id: 'Conversation' });
/** The conversation of an audience. */
export type Conversation = z.infer<typeof ConversationSchema>;

/** Context of an audience's message history. */
export const MessageContextSchema = z
  .object({
    audienceId: z.string(),
    pageId: z.string(),
    pageContext: z.string(),
    currentSupplementaryContext: z.string().nullable(),
    currentMetaTitle: z.string().nullable(),
    currentMetaDescription: z.string().nullable(),
    currentMetaKeywords: z.string().nullable(),
  })
  .meta({ id: 'MessageContext' });

/** An audience's message history (specification: GetMessage). */
export const GetMessageSchema = z
  .object({
    conversation: ConversationSchema.nullable(),
    messages: z.array(MessageSchema),
    context: MessageContextSchema,
    pendingChanges: z.array(ChangeSchema),
  })
  .meta({
    id: 'GetMessage',
    description:
      "An audience's conversation, messages, context and pending changes. At most 1,000 messages, which with the pending changes take at most 4 MiB (4,194,304 bytes of JSON).",
  });
/** An audience's message history. */
export type GetMessage = z.infer<typeof GetMessageSchema>;

const text = (kind: keyof typeof TEXT_BOUNDS) => z.string().max(TEXT_BOUNDS[kind]);

/**
 * Body of `createAudienceMessage`. Changes with status `applied` are applied to the audience and
 * the message stores a snapshot that `restoreAudienceMessage` can return to.
 */
export const CreateMessageBodySchema = z
  .object({
    role: MessageRoleSchema.describe('Who wrote the message: user or assistant.'),
    content: text('longText').describe('Text of the message.'),
    changes: z
      .array(NewChangeSchema)
      .max(20)
      .optional()
      .describe('Changes to the audience the message proposes or applied.'),
    toolCalls: z
      .array(NewToolCallSchema)
      .max(ITEM_BOUNDS.parts)
      .optional()
      .describe('Tool calls the assistant made in this message.'),
    contentParts: z
      .array(NewContentPartSchema)
      .max(ITEM_BOUNDS.parts)
      .optional()
      .describe('The message as typed parts (text, tool calls, artifacts, errors); unset: content only.'),
    reasoning: text('longText').optional().describe("The assistant's reasoning shown with the message."),
    isInterrupted: z.boolean().optional().describe('Whether the message was cut off before it ended.'),
  })
  .strict()
  .meta({
    id: 'CreateMessageRequest',
    [MAX_BYTES_KEYWORD]: MESSAGE_MAX_BYTES,
    description:
      "A message to append. Stored, it may take at most 256 KiB (262,144 bytes of JSON as returned: content, reasoning, tool calls with their results, content parts, changes with their previous values); larger is 400 VALIDATION_ERROR, so keep large tool results elsewhere and reference them. An audience's history holds at most 1,000 messages and 4 MiB (4,194,304 bytes; saved changes count twice, as the history also lists them as pending); a message past either is 400 VALIDATION_ERROR too.",
  });
/** Body of `createAudienceMessage`. */
export type CreateMessageBody = z.input<typeof CreateMessageBodySchema>;

/** Result of `restoreAudienceMessage`. */
export const RestoreMessageResultSchema = z
  .object({ success: z.boolean(), messageId: z.string() })
  .meta({ id: 'RestoreMessageResult' });
/** Result of `restoreAudienceMessage`. */
export type RestoreMessageResult = z.infer<typeof RestoreMessageResultSchema>;
