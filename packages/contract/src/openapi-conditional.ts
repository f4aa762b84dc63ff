// Conditional requests in the OpenAPI document: the `ETag` header, `If-None-Match` with 304 on
// single-resource reads, `If-Match` with 412 on writes to a resource (`common/conditional.ts`).
import type { OperationMeta } from './common/operations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ETAG_REF = { $ref: '#/components/headers/ETag' };

/** The `If-None-Match` and `If-Match` parameters an operation takes. */
export function conditionalParameters(method: string, meta: OperationMeta): JsonObject[] {
  if (method === 'GET' && meta.resource) return [{ $ref: '#/components/parameters/IfNoneMatch' }];
  if (meta.ifMatch) return [{ $ref: '#/components/parameters/IfMatch' }];
  return [];
}

/** The `ETag` header on a response, when the answer with this status carries one. */
export function etagHeader(code: number, meta: OperationMeta): JsonObject {
  const tagged = code === 304 || (code >= 200 && code < 300 && meta.sendsEtag);
  return tagged ? { ETag: ETAG_REF } : {};
}

/** The components the pieces above refer to. */
export const CONDITIONAL_COMPONENTS: { headers: JsonObject; parameters: JsonObject } = {
  headers: {
    ETag: {
      description:
        "Strong entity tag of the resource's current representation: it changes whenever anything in the resource's body changes (signed download links of an asset excepted, which change on every answer). Send it back as `If-None-Match` on a read (304 while unchanged) or `If-Match` on a write (412 once changed).",
      schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{22}"$', examples: ['"3q2-7wEjRWeJq83vEjRWeA"'] },
    },
    ContentETag: {
      description:
        "Strong entity tag of an asset's stored bytes (the SHA-256 of them, in base64url): a download sends it (and honours it in If-None-Match and If-Range), an upload's answer sends the new one, and an upload's If-Match names it.",
      schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{43}"$' },
    },
  },
  parameters: {
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description:
        'Tags of representations you already hold (a comma-separated list, or `*`). When one is the current `ETag`: 304 Not Modified, no body, the same `ETag`; a 304 does not count against the rate limit (its `RateLimit-Remaining` shows the window without it).',
      schema: { type: 'string', minLength: 1, maxLength: 4096 },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'Do the write only if the resource is unchanged: its current `ETag`, a comma-separated list of tags, or `*` (any current representation). A stale tag is 412 PRECONDITION_FAILED and nothing changes; the check and the write are atomic. A missing resource is 404 as without the header. A retry with the same `Idempotency-Key` of a write that succeeded is replayed, not refused.',
      schema: { type: 'string', minLength: 1, maxLength: 4096 },
    },
  },
};
