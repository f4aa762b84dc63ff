import type { z } from 'zod';
import { UPLOAD_MEDIA_TYPES } from './assets/content.contract.js';
import { ERROR_CATALOG } from './common/errors.js';
import type { OperationMeta } from './common/operations.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The rate-limit headers of every API response: today's three and draft 11's two. */
export const RATE_LIMIT_HEADER_NAMES = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

const header = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
/** Every answer carries its request id; uploads (keyed API calls) also the rate-limit headers. */
const REQUEST_ID: JsonObject = { 'x-request-id': header('RequestId') };
const API_HEADERS: JsonObject = {
  ...REQUEST_ID,
  ...Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, header(name.replaceAll('-', ''))])),
};

/** Raw bytes: `format: binary`, which generators type as a Blob or a file, not as text. */
const BINARY: JsonObject = { schema: { type: 'string', format: 'binary' } };

/** What each status of a bytes operation means, by direction. */
const DESCRIPTIONS: Record<'upload' | 'download', Record<number, string>> = {
  upload: {
    200: 'The asset, with fresh signed download links.',
    400: 'Body over ASSET_MAX_BYTES, or Content-Type not a media type.',
    401: 'Missing or unknown API key.',
    403: 'The key lacks the write scope.',
    404: "Unknown asset, or another tenant's.",
    412: 'If-Match does not name the ETag of what the download serves now; nothing was stored.',
    429: 'Rate limited.',
    503: 'Database unavailable; retry after Retry-After.',
  },
  download: {
    200: 'The bytes, with the Content-Type they were uploaded with, Content-Length, ETag and Cache-Control: private.',
    206: 'The requested range, with Content-Range.',
    304: 'Not modified (If-None-Match matched the ETag).',
    403: 'Forged, altered (its tenant included) or expired link.',
    404: 'Nothing uploaded yet.',
    416: 'Range not satisfiable; Content-Range: bytes */size.',
    429: "The asset's tenant already runs its share of database operations; retry after Retry-After.",
    503: 'Database unavailable, or the content replaced as the download started; retry after Retry-After.',
  },
};

/** The request body of an upload: raw bytes under each of {@link UPLOAD_MEDIA_TYPES}. */
export function bytesRequestBody(): JsonObject {
  return { required: true, content: Object.fromEntries(UPLOAD_MEDIA_TYPES.map((type) => [type, BINARY])) };
}

/**
 * The responses of an operation with metadata `bytes`, from its declared statuses: a download's
 * 2xx answers are raw bytes of any media type, a response whose schema is `undefined` has no
 * content, every other response the JSON schema `toSchema` gives. A download takes no key, so it
 * answers no rate-limit headers. The bytes' `ETag` comes with a download and an upload's answer.
 */
export function bytesResponses(
  route: { responses: Record<number, unknown> },
  bytes: NonNullable<OperationMeta['bytes']>,
  toSchema: (schema: unknown) => JsonObject,
): JsonObject {
  const out: JsonObject = {};
  const base = bytes === 'upload' ? API_HEADERS : REQUEST_ID;
  for (const [status, declared] of Object.entries(route.responses)) {
    const response = declared as z.ZodType;
    const code = Number(status);
    const title = Object.values(ERROR_CATALOG).find((e) => e.status === code)?.title;
    const tagged = bytes === 'upload' ? code === 200 : code === 200 || code === 206 || code === 304;
    const headers = {
      ...base,
      ...(code === 429 || code === 503 ? { 'Retry-After': header('RetryAfter') } : {}),
      ...(tagged ? { ETag: header('ContentETag') } : {}),
    };
    const item: JsonObject = { description: DESCRIPTIONS[bytes][code] ?? title ?? 'Response', headers };
    if (bytes === 'download' && status.startsWith('2')) item.content = { '*/*': BINARY };
    else if (!response.safeParse(undefined).success)
      item.content = { 'application/json': { schema: toSchema(response) } };
    out[status] = item;
  }
  return out;
}
