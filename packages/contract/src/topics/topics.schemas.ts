import { z } from 'zod';
import { TEXT_BOUNDS } from '../common/bounds.js';
import { MAX_SAFE_INTEGER, TimestampSchema } from '../common/primitives.js';

const SortOrderSchema = z
  .number()
  .int()
  .min(0)
  .max(MAX_SAFE_INTEGER)
  .describe('Position among the topics, from 0.');
const PurposeSchema = z.string().min(1).max(TEXT_BOUNDS.text);

/** An entry of a topic. */
export const TopicEntrySchema = z
  .object({
    topicEntryId: z.string(),
    topicId: z.string(),
    sortOrder: z.number(),
    content: z.object({ type: z.string(), content: z.string() }),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'TopicEntry' });
/** An entry of a topic. */
export type TopicEntry = z.infer<typeof TopicEntrySchema>;

/** A knowledge topic holding entries. Each tenant has exactly one default topic (`isDefault: true`). */
export const TopicSchema = z
  .object({
    topicId: z.string(),
    title: z.string(),
    purpose: z.string().nullable(),
    sortOrder: z.number(),
    isDefault: z.boolean(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    entries: z.array(TopicEntrySchema),
  })
  .meta({ id: 'Topic', description: 'Knowledge topic holding entries.' });
/** A knowledge topic. */
export type Topic = z.infer<typeof TopicSchema>;

/** Body of `createTopic`: a `title` of 1 to 500 characters and an optional `sortOrder` (0 to 9007199254740991). */
export const CreateTopicBodySchema = z
  .object({
    title: z.string().min(1).max(TEXT_BOUNDS.title).describe('Title of the topic.'),
    sortOrder: SortOrderSchema.optional(),
    purpose: PurposeSchema.optional().describe('What the topic is for.'),
  })
  .strict()
  .meta({ id: 'CreateTopicRequest' });
/** Body of `createTopic`. */
export type CreateTopicBody = z.input<typeof CreateTopicBodySchema>;

/** Body of `updateTopic`: at least one field. Renaming the default topic is 409 CONFLICT. */
export const UpdateTopicBodySchema = z
  .object({
    title: z
      .string()
      .min(1)
      .max(TEXT_BOUNDS.title)
      .optional()
      .describe('New title of the topic; the default topic cannot be renamed (409 CONFLICT).'),
    sortOrder: SortOrderSchema.optional(),
    purpose: PurposeSchema.nullable().optional().describe('What the topic is for; null removes it.'),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'At least one field is required' })
  .meta({ id: 'UpdateTopicRequest' });
/** Body of `updateTopic`. */
export type UpdateTopicBody = z.input<typeof UpdateTopicBodySchema>;
