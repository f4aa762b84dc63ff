import { z } from 'zod';

/** Every error code of the specification, with its HTTP status and reason phrase. */
export const ERROR_CATALOG = {
  VALIDATION_ERROR: { status: 400, title: 'Bad Request' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not Found' },
  CONFLICT: { status: 409, title: 'Conflict' },
  RATE_LIMITED: { status: 429, title: 'Too Many Requests' },
  INTERNAL: { status: 500, title: 'Internal Server Error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service Unavailable' },
} as const;

/** One of the specification's error codes. */
export const ErrorCodeSchema = z.enum([
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
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
  .meta({ id: 'Error', description: 'The error object returned by every failed request.' });
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
