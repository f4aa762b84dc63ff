import { z } from 'zod';
import { boundedJsonObject, JSON_PAYLOAD_MAX_BYTES } from '../common/bounds.js';
import { BooleanFlagSchema } from '../common/flags.js';
import { ACCOUNT_ID_LENGTH, AccountIdSchema } from '../common/ids.js';
import { PaginationQuerySchema } from '../common/pagination.js';
import { CountSchema, JsonObjectSchema, KebabCaseSchema, TimestampSchema } from '../common/primitives.js';
import { LinkedPersonSchema } from '../persons/persons.schemas.js';

const accountFields = {
  accountId: AccountIdSchema,
  domain: z.string().min(1).describe('Canonical account domain, e.g. example.com.'),
  name: z.string().min(1).max(255).nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  latestActivityAt: TimestampSchema.nullable(),
};

/** An account as listed by `listAccounts`: with `linkedPersonsCount` instead of `linkedPersons`. */
export const AccountListItemSchema = z
  .object({ ...accountFields, linkedPersonsCount: CountSchema })
  .meta({ id: 'AccountListItem', description: 'An account in a list, with the number of linked persons.' });
/** An account as listed. */
export type AccountListItem = z.infer<typeof AccountListItemSchema>;

/** An account: a company-level record identified by a domain, with its linked persons. */
export const AccountSchema = z
  .object({ ...accountFields, linkedPersons: z.array(LinkedPersonSchema) })
  .meta({ id: 'Account', description: 'Company-level record identified by a domain.' });
/** An account with its linked persons. */
export type Account = z.infer<typeof AccountSchema>;

/** Query of `listAccounts`. `includeEmptyOnly=true` lists only accounts without linked persons. */
export const ListAccountsQuerySchema = PaginationQuerySchema.extend({
  includeEmptyOnly: BooleanFlagSchema.optional().describe('true: only accounts without linked persons.'),
}).strict();

/** Query of `listAccountActivity`. */
export const ListAccountActivityQuerySchema = PaginationQuerySchema.extend({
  includePersonActivity: BooleanFlagSchema.optional().describe(
    "true: also the logs of the account's persons.",
  ),
  includeDeleted: BooleanFlagSchema.optional().describe('true: also deleted items.'),
}).strict();

/**
 * One item of an account's activity: an account log, or (with `includePersonActivity`) a person log.
 * Fields that do not apply to the item's kind are omitted: `accountLogId` for person logs,
 * `personId`, `personLogId` and `personName` for account logs, `deletedAt` unless deleted,
 * `idempotencyKey` when none was given.
 */
export const AccountActivityItemSchema = z
  .object({
    activityId: z.string(),
    accountId: z.string(),
    accountLogId: z.string().optional(),
    personId: z.string().optional(),
    personLogId: z.string().optional(),
    personName: z.string().optional(),
    source: z.string(),
    type: z.string(),
    payload: JsonObjectSchema,
    idempotencyKey: z.string().optional(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
    deletedAt: TimestampSchema.optional(),
  })
  .meta({ id: 'AccountActivityItem' });
/** One item of an account's activity. */
export type AccountActivityItem = z.infer<typeof AccountActivityItemSchema>;

/**
 * Body of `createAccountLog`. The account is `accountId` when given (unknown: 404), else the account
 * of the canonical `domain` (created when new); one of the two is required. `type` defaults to `webhook`.
 * An `idempotencyKey` makes retries safe: a replay with the same body returns the first entry.
 */
export const CreateAccountLogBodySchema = z
  .object({
    source: KebabCaseSchema.describe('System the event comes from, e.g. crm.'),
    type: KebabCaseSchema.default('webhook').describe('Kind of event, e.g. meeting-booked.'),
    payload: boundedJsonObject(
      JSON_PAYLOAD_MAX_BYTES,
      'Any JSON object of at most 65,536 bytes as compact UTF-8 JSON.',
    ),
    accountId: AccountIdSchema.max(ACCOUNT_ID_LENGTH)
      .optional()
      .describe('The account, by id (from listAccounts); unknown: 404 NOT_FOUND. Give it or domain.'),
    domain: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe(
        'The account, by web domain, e.g. example.com; equal domains are one account, created when new.',
      ),
    name: z.string().min(1).max(255).optional().describe('Name of the account, set when it is created.'),
    idempotencyKey: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .describe(
        'Optional key of this event (1-255 characters). Requests with the same key and the same body record one entry and return it again; the same key with another body is 409 CONFLICT; without a key every request records a new entry.',
      ),
  })
  .strict()
  .refine((body) => body.accountId !== undefined || body.domain !== undefined, {
    message: 'Either accountId or domain is required',
    path: ['domain'],
  })
  .meta({ id: 'CreateAccountLogRequest' });
/** Body of `createAccountLog` as a caller writes it (`type` optional). */
export type CreateAccountLogBody = z.input<typeof CreateAccountLogBodySchema>;

/** A created account log entry. */
export const AccountLogSchema = z
  .object({
    accountLogId: z.string().min(1),
    accountId: AccountIdSchema,
    source: KebabCaseSchema,
    type: KebabCaseSchema,
    createdAt: TimestampSchema,
  })
  .meta({ id: 'AccountLog', description: 'A created account log entry.' });
/** A created account log entry. */
export type AccountLog = z.infer<typeof AccountLogSchema>;
