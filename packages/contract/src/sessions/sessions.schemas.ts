import { z } from 'zod';
import { TimestampSchema } from '../common/primitives.js';

/**
 * An interaction recorded in an audience session. `timestamp` is in epoch milliseconds; the
 * specification does not say which fields are required, so text fields without a value are omitted.
 */
export const InteractionSchema = z
  .object({
    componentContext: z.string().optional(),
    componentId: z.string(),
    label: z.string(),
    responseText: z.string().optional(),
    groundingChunkIds: z.array(z.string()),
    options: z.array(z.string()),
    timestamp: z.number().describe('Epoch milliseconds.'),
  })
  .meta({ id: 'Interaction' });
/** An interaction recorded in an audience session. */
export type Interaction = z.infer<typeof InteractionSchema>;

/** Result of `getAudienceSessionInteractions`: `found` is false for an unknown session. */
export const SessionInteractionsSchema = z
  .object({ found: z.boolean(), interactions: z.array(InteractionSchema) })
  .meta({ id: 'SessionInteractions' });
/** Interactions of an audience session. */
export type SessionInteractions = z.infer<typeof SessionInteractionsSchema>;

/** Body of `createAudienceSession`. */
export const CreateAudienceSessionBodySchema = z
  .object({
    audienceId: z
      .string()
      .min(1)
      .max(255)
      .describe('Id of the audience whose experience is visited (from listAudiences).'),
  })
  .strict()
  .meta({ id: 'CreateAudienceSessionRequest' });
/** Body of `createAudienceSession`. */
export type CreateAudienceSessionBody = z.input<typeof CreateAudienceSessionBodySchema>;

/** An audience session: one visit to an audience's experience. */
export const AudienceSessionSchema = z
  .object({
    audienceSessionId: z.string(),
    audienceId: z.string(),
    pageId: z.string(),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'AudienceSession' });
/** An audience session. */
export type AudienceSession = z.infer<typeof AudienceSessionSchema>;

/** Body of `createAudienceSessionInteraction`. `timestamp` defaults to the time of receipt. */
export const CreateInteractionBodySchema = z
  .object({
    componentId: z.string().min(1).max(255).describe('Id of the page component the visitor used.'),
    label: z.string().min(1).max(1000).describe('Label of the component.'),
    componentContext: z.string().max(10_000).optional().describe('What the component showed.'),
    responseText: z.string().max(10_000).optional().describe('What the visitor answered or typed.'),
    groundingChunkIds: z
      .array(z.string().min(1).max(255))
      .max(100)
      .optional()
      .describe('Ids of the knowledge chunks the answer drew on.'),
    options: z.array(z.string().max(1000)).max(100).optional().describe('Options the component offered.'),
    timestamp: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('When it happened, in milliseconds since 1970; unset: when it is received.'),
  })
  .strict()
  .meta({ id: 'CreateInteractionRequest' });
/** Body of `createAudienceSessionInteraction`. */
export type CreateInteractionBody = z.input<typeof CreateInteractionBodySchema>;
