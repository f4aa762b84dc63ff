import type { Asset } from '@customer-api/contract';
import { ROUTES } from '../generated/routes.js';
import { tagEtag } from './conditional.js';
import { errorFromResponse, UnexpectedResponseError } from './errors.js';
import { exchange } from './exchange.js';
import { type CallConfig, tagRequestId } from './request.js';
import { isRetryable, retryDelayMs, sleep } from './retry.js';
import type { UploadBody } from './transport.js';
import type { RequestOptions } from './types.js';

/**
 * Bytes for {@link CustomerApiClient.putAssetContent}: a `Blob` (or `File`), a `Uint8Array`
 * (`Buffer`), a web `ReadableStream`, or, on Node.js, a `Readable` (e.g. `fs.createReadStream`)
 * or another async iterable of bytes. Streams are sent as they are read, never buffered whole.
 */
export type AssetBody = Blob | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Options of an asset upload: the media type, and the usual per-call options. */
export interface UploadOptions extends Omit<RequestOptions, 'idempotencyKey'> {
  /** `Content-Type` of the bytes (default: the Blob's own type, else `application/octet-stream`). */
  contentType?: string;
  /**
   * Store only while the bytes served are still those of this `ETag` (a download's, or
   * {@link getEtag} of an earlier upload's Asset): otherwise {@link PreconditionFailedError} and
   * nothing is stored. `*`: only while something is served.
   */
  ifMatch?: string;
}

/** Which of an asset's files an upload replaces. */
export type UploadKind = 'content' | 'preview';

/** The contract's upload operations, one per {@link UploadKind}. */
export type UploadOperation = 'putAssetContent' | 'putAssetPreview';

/** Blobs and byte arrays can be sent again; a stream is consumed by its first attempt. */
function replayable(body: AssetBody): body is Blob | Uint8Array {
  return body instanceof Uint8Array || (typeof Blob !== 'undefined' && body instanceof Blob);
}

function contentTypeOf(body: AssetBody, options: UploadOptions): string {
  if (options.contentType) return options.contentType;
  if (typeof Blob !== 'undefined' && body instanceof Blob && body.type) return body.type;
  return 'application/octet-stream';
}

/**
 * The upload `operation` (its method and path from the contract) with the raw bytes. Retries (PUT
 * replaces, so repeating it is safe) only with a Blob or byte array; a stream is sent once.
 */
export async function uploadAsset(
  config: CallConfig,
  operation: UploadOperation,
  assetId: string,
  body: AssetBody,
  options: UploadOptions = {},
): Promise<Asset> {
  if (typeof assetId !== 'string' || assetId === '') throw new TypeError('Missing assetId');
  if (options.ifMatch !== undefined && (typeof options.ifMatch !== 'string' || options.ifMatch.trim() === ''))
    throw new TypeError(
      `${operation}: ifMatch must be an ETag (or *); leave it out to upload unconditionally`,
    );
  const route = ROUTES[operation];
  const init = {
    url: config.baseUrl + route.path.replace(':asset_id', encodeURIComponent(assetId)),
    method: route.method,
    headers: {
      accept: 'application/json',
      ...config.headers,
      ...options.headers,
      'x-api-key': config.apiKey,
      'content-type': contentTypeOf(body, options),
      ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }),
    },
    body: body as UploadBody,
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    signal: options.signal,
  };
  const maxRetries = replayable(body) ? (options.maxRetries ?? config.maxRetries) : 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const raw = await exchange(config.transport, config.observers, operation, attempt, init);
      const parsed = parseJson(raw.text);
      if (raw.status < 200 || raw.status > 299) throw errorFromResponse(raw.status, raw.headers, parsed);
      const data = config.validator ? config.validator(operation, raw.status, parsed) : { data: parsed };
      if (!data || typeof data.data !== 'object' || data.data === null || parsed === raw.text)
        throw new UnexpectedResponseError({ status: raw.status, headers: raw.headers, body: parsed });
      const asset = tagRequestId(data.data, raw.header('x-request-id') ?? undefined);
      return tagEtag(asset, raw.header('etag') ?? undefined) as Asset;
    } catch (error) {
      const retry = attempt <= maxRetries && isRetryable(error, true);
      const ms = retry ? retryDelayMs(error, attempt - 1, config.backoff) : undefined;
      if (ms === undefined) throw error;
      await sleep(ms, options.signal);
    }
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
