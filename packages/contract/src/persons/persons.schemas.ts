import { z } from 'zod';
import { boundedJsonObject, JSON_PAYLOAD_MAX_BYTES } from '../common/bounds.js';
import { AccountIdSchema } from '../common/ids.js';
import { KebabCaseSchema, TimestampSchema } from '../common/primitives.js';

const personFields = {
  personId: z.string(),
  name: z.string(),
  email: z.string(),
  domain: z
    .string()
    .describe("The email's canonical domain; links the person to the account with that domain."),
  slug: z.string(),
  phoneNumber: z.string().optional(),
  linkedinProfileUrl: z.string().optional(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
};

/** A person linked to an account (specification: LinkedPerson). Absent phone and LinkedIn fields are omitted. */
export const LinkedPersonSchema = z.object(personFields).meta({ id: 'LinkedPerson' });
/** A person linked to an account. */
export type LinkedPerson = z.infer<typeof LinkedPersonSchema>;

/** An individual contact record, linked to the account of its email's domain. */
export const PersonSchema = z
  .object({ ...personFields, accountId: AccountIdSchema })
  .meta({ id: 'Person', description: 'Individual contact record.' });
/** An individual contact record. */
export type Person = z.infer<typeof PersonSchema>;

/** Body of `createPerson`. */
export const CreatePersonBodySchema = z
  .object({
    name: z.string().min(1).max(255).describe('Full name of the person.'),
    email: z
      .email()
      .max(320)
      .describe("Email address; its domain links the person to that domain's account."),
    phoneNumber: z.string().min(1).max(50).optional().describe('Phone number.'),
    linkedinProfileUrl: z.url().max(2048).optional().describe('Address of the LinkedIn profile.'),
    slug: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Must be kebab-case')
      .optional()
      .describe("Short unique name for the person's addresses (kebab-case)."),
  })
  .strict()
  .meta({ id: 'CreatePersonRequest' });
/** Body of `createPerson`. */
export type CreatePersonBody = z.input<typeof CreatePersonBodySchema>;

/** Body of `createPersonLog`. */
export const CreatePersonLogBodySchema = z
  .object({
    personId: z
      .string()
      .min(1)
      .max(255)
      .describe("Id of the person (personId from createPerson or an account's linkedPersons)."),
    source: KebabCaseSchema.describe('System the event comes from, e.g. crm.'),
    type: KebabCaseSchema.describe('Kind of event, e.g. page-view.'),
    payload: boundedJsonObject(
      JSON_PAYLOAD_MAX_BYTES,
      'Any JSON object of at most 65,536 bytes as compact UTF-8 JSON.',
    ),
  })
  .strict()
  .meta({ id: 'CreatePersonLogRequest' });
/** Body of `createPersonLog`. */
export type CreatePersonLogBody = z.input<typeof CreatePersonLogBodySchema>;

/** A recorded person log; it appears in the activity of the person's account. */
export const PersonLogSchema = z
  .object({
    personLogId: z.string().min(1),
    personId: z.string(),
    accountId: AccountIdSchema,
    source: KebabCaseSchema,
    type: KebabCaseSchema,
    createdAt: TimestampSchema,
  })
  .meta({ id: 'PersonLog' });
/** A recorded person log. */
export type PersonLog = z.infer<typeof PersonLogSchema>;
