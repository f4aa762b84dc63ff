import { z } from 'zod';
import { FIELD_TEXT } from './message-texts.js';

/** Audience fields a conversation change can touch. */
export const ChangeFieldSchema = z.enum([
  'supplementaryContext',
  'metaTitle',
  'metaDescription',
  'metaKeywords',
]);
/** Audience field a conversation change touches. */
export type ChangeField = z.infer<typeof ChangeFieldSchema>;

/** States of a proposed change. */
export const ChangeStatusSchema = z.enum(['applied', 'reverted', 'saved']);
/** State of a proposed change. */
export type ChangeStatus = z.infer<typeof ChangeStatusSchema>;

/** A change to one audience field proposed or applied in a conversation. */
export const ChangeSchema = z
  .object({
    changeId: z.string().describe('Id of the change.'),
    field: ChangeFieldSchema.describe(FIELD_TEXT.changeField),
    previousValue: z.string().nullable().describe("The field's value before the change."),
    newValue: z.string().nullable().describe(FIELD_TEXT.newValue),
    status: ChangeStatusSchema.describe(FIELD_TEXT.changeStatus),
  })
  .strict()
  .meta({ id: 'Change' });
/** A change to one audience field. */
export type Change = z.infer<typeof ChangeSchema>;

/**
 * A change as posted with a message: the server assigns `changeId` and fills `previousValue`. A
 * posted `previousValue` is a precondition: it must equal the field's current value, else 409.
 */
export const NewChangeSchema = z
  .object({
    field: ChangeFieldSchema.describe(FIELD_TEXT.changeField),
    newValue: z.string().max(100_000).nullable().describe(FIELD_TEXT.newValue),
    status: ChangeStatusSchema.default('saved').describe(FIELD_TEXT.changeStatus),
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
