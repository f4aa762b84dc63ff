import { z } from 'zod';

/**
 * Prefixes of the service's TypeID-style identifiers: `<prefix>_<26 lower-case base32 characters>`,
 * generated from a UUIDv7 so that identifiers sort by creation time.
 */
export const ID_PREFIXES = [
  'page',
  'audience',
  'version',
  'conversation',
  'message',
  'change',
  'person',
  'personlog',
  'accountlog',
  'account',
  'activity',
  'topic',
  'topicentry',
  'asset',
  'session',
  'whsub',
  'evt',
  'whdel',
  'tenant',
  'req',
] as const;

/** One of {@link ID_PREFIXES}. */
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** The pattern every account identifier matches (specification: Account.accountId). */
export const ACCOUNT_ID_PATTERN = /^account_[a-z0-9]{26}$/;

/** Length of every account identifier: `account_` and 26 characters. */
export const ACCOUNT_ID_LENGTH = 34;

/** An account identifier: `account_` followed by 26 lower-case letters or digits. */
export const AccountIdSchema = z
  .string()
  .min(1)
  .regex(ACCOUNT_ID_PATTERN, 'Must match ^account_[a-z0-9]{26}$');
/** An account identifier such as `account_01jd4x3k5n8q2r6t9v0w1y2z3a`. */
export type AccountId = z.infer<typeof AccountIdSchema>;
