import { CONDITIONAL_COMPONENTS } from './openapi-conditional.js';
import type { JsonObject } from './openapi-types.js';

/**
 * The document's components besides its schemas: the `x-api-key` security scheme, the headers
 * responses refer to and the `Idempotency-Key` parameters.
 */
export const FIXED_COMPONENTS: Record<string, JsonObject> = {
  securitySchemes: {
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description:
        'API key of one tenant. A key has scopes: `read` allows the GET operations, `write` every other one (each operation lists the scope it needs as the role of this requirement). A key without the scope an operation needs gets 403 FORBIDDEN.',
    },
  },
  headers: {
    RequestId: {
      description: 'Identifier of the request; equals requestId in error bodies.',
      required: true,
      schema: { type: 'string', pattern: '^req_[0-9a-z]{26}$' },
    },
    RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
    XOAuthScopes: {
      description:
        'The scopes of the API key that made the request, comma-separated (`read, write`); on every response to a valid key, errors included. A client can hide what the key may not do.',
      schema: { type: 'string', examples: ['read, write', 'read'] },
    },
    RetryAfterRunning: {
      description:
        'Present (always 1) only when the request with this Idempotency-Key is still running: retry with the same key after this many seconds to get its response. A 409 without it is final.',
      schema: { type: 'integer' },
    },
    IdempotentReplayed: {
      description:
        '`true` when this is the kept response of an earlier request with the same Idempotency-Key (same status and body, byte for byte); absent otherwise.',
      schema: { type: 'string', enum: ['true'] },
    },
    ...CONDITIONAL_COMPONENTS.headers,
    RateLimitLimit: { description: 'Requests per window of this API key.', schema: { type: 'integer' } },
    RateLimitRemaining: {
      description: 'Requests left in the current window.',
      schema: { type: 'integer' },
    },
    RateLimitReset: {
      description: 'Seconds until the current window ends.',
      schema: { type: 'integer' },
    },
    RateLimitPolicy: {
      description:
        'The quota policy (draft-ietf-httpapi-ratelimit-headers-11): `"default";q=<requests>;w=<window seconds>`.',
      schema: { type: 'string', examples: ['"default";q=1000;w=60'] },
    },
    RateLimit: {
      description:
        'The state of the policy\'s window (draft-ietf-httpapi-ratelimit-headers-11): `"default";r=<remaining>;t=<seconds to reset>`.',
      schema: { type: 'string', examples: ['"default";r=998;t=42'] },
    },
  },
  parameters: {
    ...CONDITIONAL_COMPONENTS.parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes this write safe to retry. 1 to 255 visible ASCII characters, unique per request (a UUID), scoped to your tenant. The first response (status and body) is kept for 24 hours and returned again, with `Idempotent-Replayed: true`, to a retry with the same key, method, path and body; nothing is done twice. The same key with another method, path or body is 409 CONFLICT; while the first request still runs, 409 CONFLICT with `Retry-After: 1`. Responses 400, 401, 403, 429 and 5xx are not kept: the key stays free. GET and DELETE ignore the header.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
    },
    IdempotencyKeyNotKept: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Checked (1 to 255 visible ASCII characters, else 400) but not kept: this write answers with the whole history (up to 4 MiB), which is not stored per key. It is idempotent by itself: a retry with the same key runs again, changes nothing more and answers the history as it is then (no `Idempotent-Replayed`, no 409 for a reused key).',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
    },
  },
};
