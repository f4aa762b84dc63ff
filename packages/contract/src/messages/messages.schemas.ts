import { z } from 'zod';
import { ITEM_BOUNDS, MAX_BYTES_KEYWORD, TEXT_BOUNDS } from '../common/bounds.js';
import { TimestampSchema } from '../common/primitives.js';

/** Audience fields a conversation change can touch. */
export const ChangeFieldSchema = z.enum([
  'supplementaryContext',
  'metaTitle',
  'metaDescription',
  'metaKeywords',
]);
/** Audience field a conversation change touches. */
export type ChangeField = z.infer<typeof ChangeFieldSchema>;

/**
 * Largest message an audience's conversation stores: 256 KiB, counted as UTF-8 bytes of the
 * message's JSON as the history returns it (content, reasoning, tool calls with their results,
 * content parts, and changes with their previous values). Larger: 400 VALIDATION_ERROR.
 */
export const MESSAGE_MAX_BYTES = 262_144;

/**
 * Largest history of one audience: 4 MiB, the sum of its messages' sizes (see
 * {@link MESSAGE_MAX_BYTES}) where saved changes count twice, since the history also lists them
 * as `pendingChanges`. A message that would go past it: 400 VALIDATION_ERROR. A history read therefore
 * answers at most this much plus the audience's context.
 */
export const MESSAGE_HISTORY_MAX_BYTES = 4_194_304;

/** Most messages one audience's history holds; the next one is 400 VALIDATION_ERROR. */
export const MESSAGE_HISTORY_MAX_MESSAGES = 1_000;

/** States of a proposed change. */
export const ChangeStatusSchema = z.enum(['applied', 'reverted', 'saved']);
/** State of a proposed change. */
export type ChangeStatus = z.infer<typeof ChangeStatusSchema>;

/** A change to one audience field proposed or applied in a conversation. */
export const ChangeSchema = z
  .object({
    changeId: z.string(),
    field: ChangeFieldSchema,
    previousValue: z.string().nullable(),
    newValue: z.string().nullable(),
    status: ChangeStatusSchema,
  })
  .strict()
  .meta({ id: 'Change' });
/** A change to one audience field. */
export type Change = z.infer<typeof ChangeSchema>;

/** States of a tool call. */
export const ToolCallStatusSchema = z.enum(['running', 'complete']);

/** A tool call made by the assistant within a message. */
export const ToolCallSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: ToolCallStatusSchema,
    arguments: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    error: z.string().optional(),
  })
  .strict()
  .meta({ id: 'ToolCall' });
/** A tool call made by the assistant. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One part of a message's content, discriminated by `type`. */
export const ContentPartSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }).strict(),
    z.object({ type: z.literal('tool-call'), toolCallId: z.string() }).strict(),
    z
      .object({
        type: z.literal('artifact'),
        artifactId: z.string(),
        path: z.string(),
        title: z.string(),
        kind: z.enum(['email', 'call-script', 'document']),
        previewText: z.string().nullable().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('error'),
        variant: z.enum(['generic', 'provider-outage']),
        title: z.string(),
        message: z.string(),
        provider: z.string().optional(),
        incidentTitle: z.string().optional(),
        statusPageUrl: z.string().optional(),
      })
      .strict(),
  ])
  .meta({ id: 'ContentPart' });
/** One part of a message's content. */
export type ContentPart = z.infer<typeof ContentPartSchema>;

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
 * A tool call as posted with a message: {@link ToolCallSchema} with bounded texts. `arguments` and
 * `result` are free-form; the message's size bounds them.
 */
export const NewToolCallSchema = z
  .object({
    id: text('id').describe('Id of the tool call.'),
    name: text('name').describe('Name of the tool called.'),
    status: ToolCallStatusSchema.describe('State of the call.'),
    arguments: z.record(text('name'), z.unknown()).optional().describe('Arguments of the call.'),
    result: z.unknown().optional().describe('What the call returned.'),
    error: text('text').optional().describe('Error of the call, if it failed.'),
  })
  .strict()
  .meta({ id: 'NewToolCall' });

/** What the `type` of every content part says (one text: a tool sees the kinds as one field). */
const PART_KIND = 'Kind of part: text, tool-call, artifact or error.';
/** What `title` says in the parts that have one. */
const PART_TITLE = 'Title of the artifact or the error.';

/** A content part as posted with a message: {@link ContentPartSchema} with bounded texts. */
export const NewContentPartSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('text').describe(PART_KIND),
        text: text('longText').describe('Text of a text part.'),
      })
      .strict(),
    z
      .object({
        type: z.literal('tool-call').describe(PART_KIND),
        toolCallId: text('id').describe("Id of one of the message's toolCalls (tool-call part)."),
      })
      .strict(),
    z
      .object({
        type: z.literal('artifact').describe(PART_KIND),
        artifactId: text('id').describe('Id of the artifact (artifact part).'),
        path: text('url').describe('Path of the artifact.'),
        title: text('title').describe(PART_TITLE),
        kind: z
          .enum(['email', 'call-script', 'document'])
          .describe('Kind of artifact: email, call-script or document.'),
        previewText: text('text')
          .nullable()
          .optional()
          .describe('Short preview of the artifact; null: none.'),
      })
      .strict(),
    z
      .object({
        type: z.literal('error').describe(PART_KIND),
        variant: z
          .enum(['generic', 'provider-outage'])
          .describe('Kind of error: generic or provider-outage.'),
        title: text('title').describe(PART_TITLE),
        message: text('text').describe('What went wrong (error part).'),
        provider: text('name').optional().describe('Provider that failed (provider-outage).'),
        incidentTitle: text('title').optional().describe("Title of the provider's incident."),
        statusPageUrl: text('url').optional().describe("Address of the provider's status page."),
      })
      .strict(),
  ])
  .meta({ id: 'NewContentPart' });

/**
 * A change as posted with a message: the server assigns `changeId` and fills `previousValue`. A
 * posted `previousValue` is a precondition: it must equal the field's current value, else 409.
 */
export const NewChangeSchema = z
  .object({
    field: ChangeFieldSchema.describe('The audience field changed.'),
    newValue: z.string().max(100_000).nullable().describe("The field's new value; null clears it."),
    status: ChangeStatusSchema.default('saved').describe('State of the change: applied, reverted or saved.'),
    previousValue: z
      .string()
      .max(100_000)
      .nullable()
      .optional()
      .describe(
        "Optional precondition: the value the field has now (after this message's earlier applied changes). When given and different, the message is 409 CONFLICT and nothing is stored; the stored change always records the actual previous value.",
      ),
  })
  .strict()
  .meta({ id: 'NewChange' });

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
