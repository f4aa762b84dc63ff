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

/**
 * What each field of a message's parts says, once for the response and the request form. The
 * parts' `type` and `title` say one text in every kind: a tool shows the kinds as one object.
 */
const TEXT = {
  callId: 'Id of the tool call.',
  callName: 'Name of the tool called.',
  callStatus: 'State of the call.',
  callArguments: 'Arguments of the call.',
  callResult: 'What the call returned.',
  callError: 'Error of the call, if it failed.',
  partText: 'Text of a text part.',
  toolCallId: "Id of one of the message's toolCalls (tool-call part).",
  artifactId: 'Id of the artifact (artifact part).',
  artifactPath: 'Path of the artifact.',
  artifactKind: 'Kind of artifact: email, call-script or document.',
  previewText: 'Short preview of the artifact; null: none.',
  variant: 'Kind of error: generic or provider-outage.',
  errorMessage: 'What went wrong (error part).',
  provider: 'Provider that failed (provider-outage).',
  incidentTitle: "Title of the provider's incident.",
  statusPageUrl: "Address of the provider's status page.",
  changeField: 'The audience field changed.',
  newValue: "The field's new value; null clears it.",
  changeStatus: 'State of the change: applied, reverted or saved.',
  partKind: 'Kind of part: text, tool-call, artifact or error.',
  partTitle: 'Title of the artifact or the error.',
} as const;

/** A change to one audience field proposed or applied in a conversation. */
export const ChangeSchema = z
  .object({
    changeId: z.string().describe('Id of the change.'),
    field: ChangeFieldSchema.describe(TEXT.changeField),
    previousValue: z.string().nullable().describe("The field's value before the change."),
    newValue: z.string().nullable().describe(TEXT.newValue),
    status: ChangeStatusSchema.describe(TEXT.changeStatus),
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
    id: z.string().describe(TEXT.callId),
    name: z.string().describe(TEXT.callName),
    status: ToolCallStatusSchema.describe(TEXT.callStatus),
    arguments: z.record(z.string(), z.unknown()).optional().describe(TEXT.callArguments),
    result: z.unknown().optional().describe(TEXT.callResult),
    error: z.string().optional().describe(TEXT.callError),
  })
  .strict()
  .meta({ id: 'ToolCall' });
/** A tool call made by the assistant. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One part of a message's content, discriminated by `type`. */
export const ContentPartSchema = z
  .discriminatedUnion('type', [
    z
      .object({ type: z.literal('text').describe(TEXT.partKind), text: z.string().describe(TEXT.partText) })
      .strict(),
    z
      .object({
        type: z.literal('tool-call').describe(TEXT.partKind),
        toolCallId: z.string().describe(TEXT.toolCallId),
      })
      .strict(),
    z
      .object({
        type: z.literal('artifact').describe(TEXT.partKind),
        artifactId: z.string().describe(TEXT.artifactId),
        path: z.string().describe(TEXT.artifactPath),
        title: z.string().describe(TEXT.partTitle),
        kind: z.enum(['email', 'call-script', 'document']).describe(TEXT.artifactKind),
        previewText: z.string().nullable().optional().describe(TEXT.previewText),
      })
      .strict(),
    z
      .object({
        type: z.literal('error').describe(TEXT.partKind),
        variant: z.enum(['generic', 'provider-outage']).describe(TEXT.variant),
        title: z.string().describe(TEXT.partTitle),
        message: z.string().describe(TEXT.errorMessage),
        provider: z.string().optional().describe(TEXT.provider),
        incidentTitle: z.string().optional().describe(TEXT.incidentTitle),
        statusPageUrl: z.string().optional().describe(TEXT.statusPageUrl),
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
    id: text('id').describe(TEXT.callId),
    name: text('name').describe(TEXT.callName),
    status: ToolCallStatusSchema.describe(TEXT.callStatus),
    arguments: z.record(text('name'), z.unknown()).optional().describe(TEXT.callArguments),
    result: z.unknown().optional().describe(TEXT.callResult),
    error: text('text').optional().describe(TEXT.callError),
  })
  .strict()
  .meta({ id: 'NewToolCall' });

/** A content part as posted with a message: {@link ContentPartSchema} with bounded texts. */
export const NewContentPartSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('text').describe(TEXT.partKind),
        text: text('longText').describe(TEXT.partText),
      })
      .strict(),
    z
      .object({
        type: z.literal('tool-call').describe(TEXT.partKind),
        toolCallId: text('id').describe(TEXT.toolCallId),
      })
      .strict(),
    z
      .object({
        type: z.literal('artifact').describe(TEXT.partKind),
        artifactId: text('id').describe(TEXT.artifactId),
        path: text('url').describe(TEXT.artifactPath),
        title: text('title').describe(TEXT.partTitle),
        kind: z.enum(['email', 'call-script', 'document']).describe(TEXT.artifactKind),
        previewText: text('text').nullable().optional().describe(TEXT.previewText),
      })
      .strict(),
    z
      .object({
        type: z.literal('error').describe(TEXT.partKind),
        variant: z.enum(['generic', 'provider-outage']).describe(TEXT.variant),
        title: text('title').describe(TEXT.partTitle),
        message: text('text').describe(TEXT.errorMessage),
        provider: text('name').optional().describe(TEXT.provider),
        incidentTitle: text('title').optional().describe(TEXT.incidentTitle),
        statusPageUrl: text('url').optional().describe(TEXT.statusPageUrl),
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
    field: ChangeFieldSchema.describe(TEXT.changeField),
    newValue: z.string().max(100_000).nullable().describe(TEXT.newValue),
    status: ChangeStatusSchema.default('saved').describe(TEXT.changeStatus),
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
