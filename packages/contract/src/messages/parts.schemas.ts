import { z } from 'zod';
import { TEXT_BOUNDS } from '../common/bounds.js';
import { FIELD_TEXT } from './message-texts.js';

const text = (kind: keyof typeof TEXT_BOUNDS) => z.string().max(TEXT_BOUNDS[kind]);

/** States of a tool call. */
export const ToolCallStatusSchema = z.enum(['running', 'complete']);

/** A tool call made by the assistant within a message. */
export const ToolCallSchema = z
  .object({
    id: z.string().describe(FIELD_TEXT.callId),
    name: z.string().describe(FIELD_TEXT.callName),
    status: ToolCallStatusSchema.describe(FIELD_TEXT.callStatus),
    arguments: z.record(z.string(), z.unknown()).optional().describe(FIELD_TEXT.callArguments),
    result: z.unknown().optional().describe(FIELD_TEXT.callResult),
    error: z.string().optional().describe(FIELD_TEXT.callError),
  })
  .strict()
  .meta({ id: 'ToolCall' });
/** A tool call made by the assistant. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One part of a message's content, discriminated by `type`. */
export const ContentPartSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('text').describe(FIELD_TEXT.partKind),
        text: z.string().describe(FIELD_TEXT.partText),
      })
      .strict(),
    z
      .object({
        type: z.literal('tool-call').describe(FIELD_TEXT.partKind),
        toolCallId: z.string().describe(FIELD_TEXT.toolCallId),
      })
      .strict(),
    z
      .object({
        type: z.literal('artifact').describe(FIELD_TEXT.partKind),
        artifactId: z.string().describe(FIELD_TEXT.artifactId),
        path: z.string().describe(FIELD_TEXT.artifactPath),
        title: z.string().describe(FIELD_TEXT.partTitle),
        kind: z.enum(['email', 'call-script', 'document']).describe(FIELD_TEXT.artifactKind),
        previewText: z.string().nullable().optional().describe(FIELD_TEXT.previewText),
      })
      .strict(),
    z
      .object({
        type: z.literal('error').describe(FIELD_TEXT.partKind),
        variant: z.enum(['generic', 'provider-outage']).describe(FIELD_TEXT.variant),
        title: z.string().describe(FIELD_TEXT.partTitle),
        message: z.string().describe(FIELD_TEXT.errorMessage),
        provider: z.string().optional().describe(FIELD_TEXT.provider),
        incidentTitle: z.string().optional().describe(FIELD_TEXT.incidentTitle),
        statusPageUrl: z.string().optional().describe(FIELD_TEXT.statusPageUrl),
      })
      .strict(),
  ])
  .meta({ id: 'ContentPart' });
/** One part of a message's content. */
export type ContentPart = z.infer<typeof ContentPartSchema>;

/**
 * A tool call as posted with a message: {@link ToolCallSchema} with bounded texts. `arguments` and
 * `result` are free-form; the message's size bounds them.
 */
export const NewToolCallSchema = z
  .object({
    id: text('id').describe(FIELD_TEXT.callId),
    name: text('name').describe(FIELD_TEXT.callName),
    status: ToolCallStatusSchema.describe(FIELD_TEXT.callStatus),
    arguments: z.record(text('name'), z.unknown()).optional().describe(FIELD_TEXT.callArguments),
    result: z.unknown().optional().describe(FIELD_TEXT.callResult),
    error: text('text').optional().describe(FIELD_TEXT.callError),
  })
  .strict()
  .meta({ id: 'NewToolCall' });

/** A content part as posted with a message: {@link ContentPartSchema} with bounded texts. */
export const NewContentPartSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('text').describe(FIELD_TEXT.partKind),
        text: text('longText').describe(FIELD_TEXT.partText),
      })
      .strict(),
    z
      .object({
        type: z.literal('tool-call').describe(FIELD_TEXT.partKind),
        toolCallId: text('id').describe(FIELD_TEXT.toolCallId),
      })
      .strict(),
    z
      .object({
        type: z.literal('artifact').describe(FIELD_TEXT.partKind),
        artifactId: text('id').describe(FIELD_TEXT.artifactId),
        path: text('url').describe(FIELD_TEXT.artifactPath),
        title: text('title').describe(FIELD_TEXT.partTitle),
        kind: z.enum(['email', 'call-script', 'document']).describe(FIELD_TEXT.artifactKind),
        previewText: text('text').nullable().optional().describe(FIELD_TEXT.previewText),
      })
      .strict(),
    z
      .object({
        type: z.literal('error').describe(FIELD_TEXT.partKind),
        variant: z.enum(['generic', 'provider-outage']).describe(FIELD_TEXT.variant),
        title: text('title').describe(FIELD_TEXT.partTitle),
        message: text('text').describe(FIELD_TEXT.errorMessage),
        provider: text('name').optional().describe(FIELD_TEXT.provider),
        incidentTitle: text('title').optional().describe(FIELD_TEXT.incidentTitle),
        statusPageUrl: text('url').optional().describe(FIELD_TEXT.statusPageUrl),
      })
      .strict(),
  ])
  .meta({ id: 'NewContentPart' });
