// Asset content routes: raw bodies and byte responses, served beside the contract (ts-rest's
// model is JSON), described here so the OpenAPI document lists every route the server answers.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const assetId: JsonObject = {
  name: 'asset_id',
  in: 'path',
  required: true,
  description: 'Id of the asset, as an earlier response gave it.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/** The rate-limit headers of every API response: today's three and draft 11's two. */
export const RATE_LIMIT_HEADER_NAMES = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

const header = (name: string): JsonObject => ({ $ref: `#/components/headers/${name}` });
/** Every answer carries its request id; the uploads (API routes) also the rate-limit headers. */
const REQUEST_ID: JsonObject = { 'x-request-id': header('RequestId') };
const API_HEADERS: JsonObject = {
  ...REQUEST_ID,
  ...Object.fromEntries(RATE_LIMIT_HEADER_NAMES.map((name) => [name, header(name.replaceAll('-', ''))])),
};

/** Raw bytes: `format: binary`, which generators type as a Blob or a file, not as text. */
const BINARY: JsonObject = { schema: { type: 'string', format: 'binary' } };

/**
 * The media types an upload may be sent as: `application/octet-stream` (also what a body without
 * Content-Type is stored as) first, then the ranges of assets' kinds. The server stores any
 * `type/subtype` and serves it back as sent; one media type per range keeps generated clients
 * and contract testers on concrete types instead of the wildcard.
 */
const UPLOAD_MEDIA_TYPES = [
  'application/octet-stream',
  'image/*',
  'video/*',
  'audio/*',
  'font/*',
  'text/*',
  'application/*',
];

const error = (description: string, headers: JsonObject = REQUEST_ID): JsonObject => ({
  description,
  headers,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
});

function upload(kind: 'content' | 'preview'): JsonObject {
  return {
    operationId: kind === 'content' ? 'putAssetContent' : 'putAssetPreview',
    summary: kind === 'content' ? "Upload an asset's content" : "Upload an asset's preview",
    description: `The request body is the raw bytes (any \`type/subtype\`, sent as Content-Type and served back with it; absent: application/octet-stream), at most ASSET_MAX_BYTES (default 100 MiB). Replaces the earlier ${kind} atomically: a failed upload keeps it.${kind === 'preview' ? ' Until a preview is put, previewDownloadUrl serves the content.' : ''} Not part of the ts-rest contract: the client has putAsset${kind === 'content' ? 'Content' : 'Preview'}.`,
    tags: ['Assets'],
    security: [{ apiKey: ['write'] }],
    parameters: [assetId],
    requestBody: {
      required: true,
      content: Object.fromEntries(UPLOAD_MEDIA_TYPES.map((type) => [type, BINARY])),
    },
    responses: {
      '200': {
        description: 'The asset, with fresh signed download links.',
        headers: API_HEADERS,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Asset' } } },
      },
      '400': error('Body over ASSET_MAX_BYTES, or Content-Type not a media type.', API_HEADERS),
      '401': error('Missing or unknown API key.', API_HEADERS),
      '403': error('The key lacks the write scope.', API_HEADERS),
      '404': error("Unknown asset, or another tenant's.", API_HEADERS),
      '429': error('Rate limited.', { ...API_HEADERS, 'Retry-After': header('RetryAfter') }),
      '500': error('Internal Server Error', API_HEADERS),
      '503': error('Database unavailable; retry after Retry-After.', {
        ...API_HEADERS,
        'Retry-After': header('RetryAfter'),
      }),
    },
  };
}

function download(kind: 'content' | 'preview'): JsonObject {
  const query = (name: string, description: string, schema: JsonObject): JsonObject => ({
    name,
    in: 'query',
    required: true,
    description,
    schema: { type: 'string', ...schema },
  });
  return {
    operationId: kind === 'content' ? 'downloadAssetContent' : 'downloadAssetPreview',
    summary: kind === 'content' ? "Download an asset's content" : "Download an asset's preview",
    description: `The address an Asset's ${kind === 'content' ? 'downloadUrl' : 'previewDownloadUrl'} gives, signed and expiring (ASSET_URL_TTL_S, default 15 min); no API key. Honours one bytes Range (206; 416 when it starts past the end; several ranges: the whole body) and If-None-Match (304).${kind === 'preview' ? ' Serves the content until a preview is put.' : ''}`,
    tags: ['Assets'],
    security: [],
    parameters: [
      assetId,
      // The link names its tenant so the file is read on the tenant's shard; it is signed too.
      query('tenant', 'Id of the tenant the asset belongs to (its tenantId), as the link gives it.', {
        minLength: 1,
        maxLength: 255,
      }),
      query('expires', 'Expiry of the link (Unix seconds), as the link gives it.', {
        pattern: '^[0-9]{1,12}$',
        maxLength: 12,
      }),
      // base64url of an HMAC-SHA256: 43 characters; a shorter one is a forged link (403).
      query('signature', 'Signature of the link, as the link gives it.', { maxLength: 43 }),
    ],
    responses: {
      '200': {
        description:
          'The bytes, with the Content-Type they were uploaded with, Content-Length, ETag and Cache-Control: private.',
        headers: REQUEST_ID,
        content: { '*/*': BINARY },
      },
      '206': { description: 'The requested range, with Content-Range.', headers: REQUEST_ID },
      '304': { description: 'Not modified (If-None-Match matched the ETag).', headers: REQUEST_ID },
      '403': error('Forged, altered (its tenant included) or expired link.'),
      '404': error('Nothing uploaded yet.'),
      '416': { description: 'Range not satisfiable; Content-Range: bytes */size.', headers: REQUEST_ID },
      '500': error('Internal Server Error'),
      '503': error(
        'Database unavailable, or the content replaced as the download started; retry after Retry-After.',
        { ...REQUEST_ID, 'Retry-After': header('RetryAfter') },
      ),
    },
  };
}

/** Path items of the asset content routes (upload and signed download). */
export function assetContentPaths(): Record<string, JsonObject> {
  return {
    '/v0/assets/{asset_id}/content': { put: upload('content') },
    '/v0/assets/{asset_id}/preview': { put: upload('preview') },
    '/v0/assets/{asset_id}/download': { get: download('content') },
    '/v0/assets/{asset_id}/preview/download': { get: download('preview') },
  };
}
