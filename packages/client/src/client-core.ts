import { createRequire } from 'node:module';
import {
  type Asset,
  OPERATION_NAMES,
  type OperationName,
  type PaginatedOperationName,
} from '@customer-api/contract';
import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';
import { paginate, paginateItems } from './core/paginate.js';
import { type CallArgs, type CallConfig, callOperation } from './core/request.js';
import { type BackoffOptions, DEFAULT_BACKOFF } from './core/retry.js';
import type { FetchLike } from './core/transport.js';
import type {
  ArgsTuple,
  OperationItem,
  OperationMethods,
  OperationMethodsWithResponse,
  OperationResult,
  RequestOptions,
} from './core/types.js';
import { type AssetBody, type UploadOptions, uploadAsset } from './core/upload.js';

/** Base URL used when neither `baseUrl` nor `CUSTOMER_API_BASE_URL` is set. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
/** Default timeout of each attempt, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default number of retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;

/** Options of {@link createClient}. Every one is optional. */
export interface ClientOptions {
  /** Root of the API, without `/v0` (default: `CUSTOMER_API_BASE_URL`, else `http://127.0.0.1:3000`). */
  baseUrl?: string;
  /** API key sent as `x-api-key` (default: `CUSTOMER_API_KEY`). Required one way or the other. */
  apiKey?: string;
  /** Timeout of each attempt in ms, covering connect, headers and body (default 30,000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2); 0 disables retries. */
  maxRetries?: number;
  /** Delays between retries. */
  backoff?: BackoffOptions;
  /**
   * undici dispatcher (Agent, Pool, ProxyAgent, MockAgent) to send requests through. By default
   * each client owns one keep-alive `Agent`, closed by `client.close()`; a given one is never closed.
   */
  dispatcher?: Dispatcher;
  /** `fetch` implementation (default: undici's `fetch`). It receives `dispatcher` only when one is given or owned. */
  fetch?: FetchLike;
  /** Validate success bodies against the contract's schemas (default false: trust the server, stay forward compatible). */
  validateResponses?: boolean;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** A Customer API client: one method per contract operation, plus pagination helpers. */
export interface CustomerApiClient extends OperationMethods {
  /** The same operations, resolving to `{ data, status, headers, requestId, attempts }`. */
  readonly withResponse: OperationMethodsWithResponse;
  /**
   * Every item of a paginated collection, fetching pages lazily as the loop advances:
   * `for await (const account of client.iterate('listAccounts', { query: { limit: 100 } }))`.
   */
  iterate<N extends PaginatedOperationName>(
    name: N,
    ...args: ArgsTuple<N>
  ): AsyncIterableIterator<OperationItem<N>>;
  /** Page by page: each value is a full envelope (`items`, `hasMore`, `nextCursor`, `totalCount`). */
  pages<N extends PaginatedOperationName>(
    name: N,
    ...args: ArgsTuple<N>
  ): AsyncIterableIterator<OperationResult<N>>;
  /**
   * Uploads an asset's content (`PUT /v0/assets/{assetId}/content`), replacing any earlier one;
   * resolves to the Asset with fresh signed `downloadUrl` / `previewDownloadUrl` links. Larger
   * than the server's `ASSET_MAX_BYTES` (default 100 MiB) is a `ValidationError`; another
   * tenant's or an unknown asset a `NotFoundError`. Streams are sent as read, never buffered,
   * and never retried (a Blob or byte array is); give a `timeoutMs` that fits a large upload.
   *
   * @example
   * ```ts
   * const asset = await client.putAssetContent(assetId, createReadStream('hero.png'), { contentType: 'image/png' });
   * const bytes = await fetch(asset.downloadUrl); // no key needed until the link expires
   * ```
   */
  putAssetContent(assetId: string, body: AssetBody, options?: UploadOptions): Promise<Asset>;
  /**
   * Uploads an asset's preview (`PUT /v0/assets/{assetId}/preview`), as {@link putAssetContent}.
   * Until a preview is put, `previewDownloadUrl` serves the content.
   */
  putAssetPreview(assetId: string, body: AssetBody, options?: UploadOptions): Promise<Asset>;
  /** The base URL requests go to. */
  readonly baseUrl: string;
  /** Closes the client's own connection pool (a caller-supplied dispatcher is left open). */
  close(): Promise<void>;
}

const RESERVED = new Set([
  'withResponse',
  'iterate',
  'pages',
  'baseUrl',
  'close',
  'putAssetContent',
  'putAssetPreview',
]);

/**
 * Creates a client for the Customer API.
 *
 * @example
 * ```ts
 * const client = createClient({ apiKey: process.env.CUSTOMER_API_KEY });
 * const page = await client.listPages({ query: { limit: 50 } });
 * const account = await client.getAccount({ params: { account_id: 'account_01jd…' } });
 * ```
 * @throws TypeError when no API key is given and `CUSTOMER_API_KEY` is unset.
 */
export function createClient(options: ClientOptions = {}): CustomerApiClient {
  const ownAgent = options.dispatcher || options.fetch ? undefined : new Agent({ keepAliveTimeout: 10_000 });
  const config = resolveConfig(options, ownAgent);
  const call = (name: OperationName, args?: CallArgs, opts?: RequestOptions) =>
    callOperation(config, name, args, opts);
  const fetchPage = async (name: OperationName, args: CallArgs, opts?: RequestOptions) =>
    (await call(name, args, opts)).data;
  const methods: Record<string, unknown> = {};
  const withResponse: Record<string, unknown> = {};
  for (const name of OPERATION_NAMES) {
    if (RESERVED.has(name)) throw new Error(`Operation ${name} collides with a client helper`);
    withResponse[name] = (args?: CallArgs, opts?: RequestOptions) => call(name, args, opts);
    methods[name] = async (args?: CallArgs, opts?: RequestOptions) => (await call(name, args, opts)).data;
  }
  const helpers = {
    withResponse,
    baseUrl: config.baseUrl,
    iterate: (name: OperationName, args?: CallArgs, opts?: RequestOptions) =>
      paginateItems(fetchPage, name, args, opts),
    pages: (name: OperationName, args?: CallArgs, opts?: RequestOptions) =>
      paginate(fetchPage, name, args, opts),
    putAssetContent: (assetId: string, body: AssetBody, opts?: UploadOptions) =>
      uploadAsset(config, assetId, 'content', body, opts),
    putAssetPreview: (assetId: string, body: AssetBody, opts?: UploadOptions) =>
      uploadAsset(config, assetId, 'preview', body, opts),
    close: async () => {
      await ownAgent?.close();
    },
  };
  return Object.assign(methods, helpers) as unknown as CustomerApiClient;
}

function resolveConfig(options: ClientOptions, ownAgent: Agent | undefined): CallConfig {
  const apiKey = options.apiKey ?? process.env.CUSTOMER_API_KEY;
  if (!apiKey) throw new TypeError('Missing API key: pass createClient({ apiKey }) or set CUSTOMER_API_KEY');
  const baseUrl = options.baseUrl ?? process.env.CUSTOMER_API_BASE_URL ?? DEFAULT_BASE_URL;
  if (!URL.canParse(baseUrl)) throw new TypeError(`Invalid baseUrl: ${baseUrl}`);
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    maxRetries: nonNegative('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES),
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    validateResponses: options.validateResponses ?? false,
    headers: { 'user-agent': USER_AGENT, ...options.headers },
    transport: {
      fetch: options.fetch ?? undiciFetch,
      dispatcher: options.dispatcher ?? ownAgent,
    },
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
const USER_AGENT = `customer-api-client/${version} node/${process.version}`;
