import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import { AssetSchema } from './assets.schemas.js';

const c = initContract();

/**
 * The media types an upload may be sent as: `application/octet-stream` (also what a body without
 * Content-Type is stored as) first, then the ranges of assets' kinds. The server stores any
 * `type/subtype` and serves it back as sent; one media type per range keeps generated clients
 * and contract testers on concrete types instead of the wildcard.
 */
export const UPLOAD_MEDIA_TYPES = [
  'application/octet-stream',
  'image/*',
  'video/*',
  'audio/*',
  'font/*',
  'text/*',
  'application/*',
] as const;

/** Query of a signed download link: every part is signed, the tenant included. */
export const DownloadLinkQuerySchema = z.object({
  tenant: z
    .string()
    .min(1)
    .max(255)
    .describe('Id of the tenant the asset belongs to (its tenantId), as the link gives it.'),
  expires: z
    .string()
    .regex(/^[0-9]{1,12}$/)
    .max(12)
    .describe('Expiry of the link (Unix seconds), as the link gives it.'),
  // base64url of an HMAC-SHA256 is 43 characters; a shorter one is a forged link (403).
  signature: z.string().max(43).describe('Signature of the link, as the link gives it.'),
});

const assetPath = z.object({ asset_id: PATH_IDS.asset_id });

/** Raw bytes: what an upload sends and a download answers, never JSON. */
const BytesSchema = z.custom<Uint8Array>().describe('The raw bytes.');

/**
 * An answer without a body (304, 416). Not `c.noBody()`: the published declarations name no
 * ts-rest type, and its marker would be declared as a plain `symbol`, which no ts-rest router accepts.
 */
const NoBodySchema = z.undefined().describe('No body.');

const uploadDescription = (kind: 'content' | 'preview') =>
  `The request body is the raw bytes (any \`type/subtype\`, sent as Content-Type and served back with it; absent: application/octet-stream), at most ASSET_MAX_BYTES (default 100 MiB). Replaces the earlier ${kind} atomically: a failed upload keeps it. With If-Match naming the ETag the ${kind} download sends (or \`*\`: something is served), it stores only while that is still what is served (412 otherwise, and nothing changes); the answer's ETag is the new bytes'.${kind === 'preview' ? ' Until a preview is put, previewDownloadUrl serves the content.' : ''}`;

const downloadDescription = (kind: 'content' | 'preview') =>
  `The address an Asset's ${kind === 'content' ? 'downloadUrl' : 'previewDownloadUrl'} gives, signed and expiring (ASSET_URL_TTL_S, default 15 min); no API key. Honours one bytes Range (206; 416 when it starts past the end; several ranges: the whole body) and If-None-Match (304).${kind === 'preview' ? ' Serves the content until a preview is put.' : ''}`;

const upload = (kind: 'content' | 'preview') =>
  ({
    method: 'PUT',
    path: `/assets/:asset_id/${kind}`,
    pathParams: assetPath,
    // Streamed, never parsed: the client sends them from a Blob, a byte array or a stream.
    body: BytesSchema,
    responses: { 200: AssetSchema, ...errorResponses(400, 401, 403, 404, 412, 429, 500, 503) },
    summary: kind === 'content' ? "Upload an asset's content" : "Upload an asset's preview",
    description: uploadDescription(kind),
    metadata: operation('Assets', 'update', { bytes: 'upload', ifMatch: true, sendsEtag: true }),
  }) as const;

const download = (kind: 'content' | 'preview', path: string) =>
  ({
    method: 'GET',
    path,
    pathParams: assetPath,
    query: DownloadLinkQuerySchema,
    responses: {
      // Raw bytes of the media type they were uploaded with (metadata `bytes: 'download'`).
      200: BytesSchema,
      206: BytesSchema,
      304: NoBodySchema,
      ...errorResponses(403, 404),
      416: NoBodySchema,
      ...errorResponses(429, 500, 503),
    },
    summary: kind === 'content' ? "Download an asset's content" : "Download an asset's preview",
    description: downloadDescription(kind),
    metadata: operation('Assets', 'read', { bytes: 'download' }),
  }) as const;

/**
 * The asset content operations: their bodies and answers are raw bytes, not JSON (metadata
 * `bytes`). An upload needs the key's `write` scope; a download needs no key, its signed link is
 * the credential.
 */
export const assetContentContract = c.router({
  putAssetContent: upload('content'),
  putAssetPreview: upload('preview'),
  downloadAssetContent: download('content', '/assets/:asset_id/download'),
  downloadAssetPreview: download('preview', '/assets/:asset_id/preview/download'),
});
