import { z } from 'zod';
import { PathIdSchema } from './primitives.js';

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

/**
 * Path parameters naming one resource by the id an earlier response gave, each described once
 * for every operation that takes it (OpenAPI parameters, MCP tool arguments).
 */
export const PATH_IDS = {
  page_id: PathIdSchema.describe('Id of the page (page_…).'),
  audience_id: PathIdSchema.describe('Id of the audience under the page (audience_…).'),
  version_id: PathIdSchema.describe('Id of the audience version (version_…).'),
  message_id: PathIdSchema.describe("Id of a message of the audience's history (message_…)."),
  asset_id: PathIdSchema.describe('Id of the asset (asset_…).'),
  account_id: PathIdSchema.describe('Id of the account (account_…).'),
  account_log_id: PathIdSchema.describe('Id of the account log entry (accountlog_…).'),
  person_log_id: PathIdSchema.describe('Id of the person log entry (personlog_…).'),
  topic_id: PathIdSchema.describe('Id of the topic (topic_…).'),
  audience_session_id: PathIdSchema.describe(
    'Id of the audience session (session_…), from createAudienceSession.',
  ),
  webhook_subscription_id: PathIdSchema.describe('Id of the webhook subscription (whsub_…).'),
  delivery_id: PathIdSchema.describe('Id of the delivery attempt (whdel_…), from listWebhookDeliveries.'),
} as const;
