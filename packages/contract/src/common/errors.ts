import { z } from 'zod';

/**
 * Every error code of the specification: its HTTP status, reason phrase, what it means and what a
 * caller does about it (the page at each error's `type` URI says the same).
 */
export const ERROR_CATALOG = {
  VALIDATION_ERROR: {
    status: 400,
    title: 'Bad Request',
    meaning:
      'The request is malformed or breaks a rule of the API: a missing or invalid field, an unknown parameter, a body that is not JSON or is too large or too deep.',
    action:
      '`details` names each input area (body, query, path, headers) and each problem with its path. Fix the request; sending it again unchanged gives the same answer.',
  },
  UNAUTHORIZED: {
    status: 401,
    title: 'Unauthorized',
    meaning: 'The request carries no API key, or a key that is unknown, revoked or expired.',
    action:
      'Send a valid key in the `x-api-key` header. Ask the operator for a new key if yours was revoked.',
  },
  FORBIDDEN: {
    status: 403,
    title: 'Forbidden',
    meaning:
      "The key is valid but may not do this: a read-only key asked for a write, or the key's tenant may not use the operation.",
    action: 'Use a key with the `write` scope for writes. Retrying with the same key gives the same answer.',
  },
  NOT_FOUND: {
    status: 404,
    title: 'Not Found',
    meaning:
      'The resource does not exist, was deleted, or belongs to another tenant (the API does not tell these apart); or the route does not exist.',
    action: 'Check the id and the path. Ids come from earlier responses of your own tenant.',
  },
  CONFLICT: {
    status: 409,
    title: 'Conflict',
    meaning:
      "The request clashes with the resource's current state (already archived, a version not pending, a stale previous value) or with an earlier request of the same idempotency key.",
    action:
      'Read the resource again and decide. With `Retry-After`, the first request of the same idempotency key is still running: retry after that many seconds. A key reused for another request needs a new key.',
  },
  PRECONDITION_FAILED: {
    status: 412,
    title: 'Precondition Failed',
    meaning:
      'The resource changed since it was read: the `If-Match` tag sent is not its current `ETag`. Nothing was changed.',
    action:
      'Read the resource again (its `ETag` comes with it), decide whether your change still applies, and send it with the new tag.',
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Too Many Requests',
    meaning:
      "The key's (or address's) request window is spent, or the tenant already uses its share of the database or of large responses.",
    action:
      'Wait the seconds of `Retry-After` (also in `details.retryAfter`), then retry; send fewer requests in parallel. `RateLimit-Remaining` on every response shows what is left.',
  },
  INTERNAL: {
    status: 500,
    title: 'Internal Server Error',
    meaning: 'The server failed on a request it should have handled. Nothing partial was stored.',
    action:
      'Retry with backoff (with an `Idempotency-Key` on writes, so a retry cannot create twice); report the `requestId` if it persists.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: 'Service Unavailable',
    meaning:
      'The server cannot answer right now: its database is unreachable or a statement took too long, or it is shutting down.',
    action: 'Retry after `Retry-After` seconds with backoff, on another instance if you have one.',
  },
} as const;

/** One of the specification's error codes. */
export const ErrorCodeSchema = z.enum([
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'RATE_LIMITED',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
]);
/** One of the specification's error codes. */
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** HTTP statuses that carry the error object. */
export type ErrorStatus = (typeof ERROR_CATALOG)[ErrorCode]['status'];

/** One problem found while validating a request. `code` is `validation_failed`. */
export const ValidationIssueSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    path: z.array(z.string()),
  })
  .meta({ id: 'ValidationIssue' });
/** One problem found while validating a request. */
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/** Validation problems of one input area (`body`, `query`, `path` or `headers`). */
export const ValidationErrorDetailSchema = z
  .object({
    field: z.string().describe('The input area: body, query, path or headers.'),
    issues: z.array(ValidationIssueSchema),
  })
  .meta({ id: 'ValidationErrorDetail' });
/** Validation problems of one input area. */
export type ValidationErrorDetail = z.infer<typeof ValidationErrorDetailSchema>;

/** Rate-limit data sent with 429 RATE_LIMITED. `retryAfter` is in seconds, `resetTime` in epoch milliseconds. */
export const RateLimitDetailsSchema = z
  .object({
    limit: z.number().describe('Requests allowed per window.'),
    remaining: z.number().describe('Requests left in the current window.'),
    resetTime: z.number().describe('When the window resets, in epoch milliseconds.'),
    retryAfter: z.number().describe('Seconds to wait before retrying.'),
  })
  .meta({ id: 'RateLimitDetails' });
/** Rate-limit data sent with 429 RATE_LIMITED. */
export type RateLimitDetails = z.infer<typeof RateLimitDetailsSchema>;

/** The error object every failed request returns (specification: Errors). */
export const ErrorSchema = z
  .object({
    code: ErrorCodeSchema,
    detail: z.string().describe('Human-readable explanation.'),
    details: z.union([z.array(ValidationErrorDetailSchema), RateLimitDetailsSchema]).optional(),
    requestId: z.string().describe('Identifier of the request; also sent as the x-request-id header.'),
    status: z.number().describe('HTTP status.'),
    title: z.string().describe('Reason phrase of the status.'),
    type: z.string().describe('URI of the form {base_url}/errors/<code in lower case>.'),
  })
  .meta({ id: 'ErrorResponse', description: 'The error object returned by every failed request.' });
/** The error object every failed request returns. */
export type ApiError = z.infer<typeof ErrorSchema>;

/** Builds the `responses` entries for the given error statuses, all sharing {@link ErrorSchema}. */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorSchema])) as {
    [K in S[number]]: typeof ErrorSchema;
  };
}

/** Error statuses every authenticated operation can return. */
export const COMMON_ERROR_STATUSES = [400, 401, 403, 429, 500, 503] as const;
