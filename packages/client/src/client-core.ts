import type { Asset, Contract, OperationName, PaginatedOperationName } from '@customer-api/contract';
import type { Dispatcher } from 'undici';
import { readEnv, runtimeToken } from './core/env.js';
import { EtagCache, type EtagCacheOptions } from './core/etag-cache.js';
import type { RequestEvent, ResponseEvent } from './core/exchange.js';
import { type ClientLogger, type LogLevel, levelled, resolveLogLevel } from './core/logging.js';
import { paginate, paginateItems } from './core/paginate.js';
import { type CallArgs, type CallConfig, callOperation } from './core/request.js';
import { type BackoffOptions, DEFAULT_BACKOFF } from './core/retry.js';
import type { FetchLike, RequestLike, Transport } from './core/transport.js';
import type {
  ArgsTuple,
  OperationItem,
  OperationMethods,
  OperationMethodsWithResponse,
  OperationResult,
  RequestOptions,
} from './core/types.js';
import { type AssetBody, type UploadOptions, uploadAsset } from './core/upload.js';
import { contractValidator, type Validator } from './core/validate.js';
import { ROUTES } from './generated/routes.js';
import { CLIENT_VERSION } from './version.js';

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
   * Node.js only: an undici dispatcher (Agent, Pool, ProxyAgent, MockAgent) to send requests
   * through. By default, on Node.js, each client owns one keep-alive `Agent`, closed by
   * `client.close()`; a given one is never closed. Other runtimes pool connections themselves.
   */
  dispatcher?: Dispatcher;
  /**
   * `fetch` implementation. Default on Node.js: undici, through its `request` API for JSON calls
   * (cheaper) and its `fetch` for uploads; elsewhere the runtime's global `fetch` (Bun, Deno,
   * Workers, browsers). A `fetch` given here carries every request. It receives `dispatcher`
   * only when one is given or owned.
   */
  fetch?: FetchLike;
  /**
   * Validate success bodies against the contract's schemas (default false: trust the server, stay
   * forward compatible); a body that fails is an `UnexpectedResponseError`. `true` uses the
   * contract the package depends on, on Node.js, Bun, Deno and Workers. The browser build leaves
   * the schemas out: there pass the contract itself, `validateResponses: contract` (from
   * `@customer-api/contract`, imported where it is needed, e.g. lazily), which works everywhere.
   */
  validateResponses?: boolean | Contract;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /**
   * Keep the last body and `ETag` of each single-resource read (`getPage`, `getTopic`, … the
   * operations that take `ifNoneMatch`) and revalidate instead of reading again: the next read of
   * the same URL sends `If-None-Match`, and on 304, which is free of the rate limit, resolves to
   * the kept body (a fresh copy each time; `withResponse` says `fromCache: true`). A changed
   * resource comes back whole and replaces the entry. Off by default; `true` keeps up to 500
   * entries and 8 MiB of JSON, least recently used first out, or give the bounds. Lists and
   * writes never go through it, and a call that names its own `ifNoneMatch` bypasses it. Entries
   * are keyed by API key and URL, and live in this client's memory only.
   */
  etagCache?: boolean | EtagCacheOptions;
  /**
   * Where log lines go (default `console`). At `debug`, one line per request and response, with
   * `x-api-key` and other secrets redacted; at `warn`, deprecation warnings only.
   */
  logger?: ClientLogger;
  /** `debug`, `warn` (default) or `off`; defaults to the `CUSTOMER_API_LOG` variable where the runtime has one. */
  logLevel?: LogLevel;
  /**
   * Called before every attempt (retries included); may add or change `event.headers`. An error
   * it throws rejects the call, unchanged.
   */
  onRequest?: (event: RequestEvent) => void | Promise<void>;
  /** Called on every HTTP response, error statuses included, before the client interprets it. */
  onResponse?: (event: ResponseEvent) => void | Promise<void>;
}

/** How a client reaches the network when the options do not say: chosen per runtime by the entry point. */
export interface DefaultTransport {
  /** Used when the options give no `fetch`. */
  fetch: FetchLike;
  /** Makes the pool a client owns when the options give neither `fetch` nor `dispatcher`. */
  makeDispatcher?: () => Dispatcher;
  /**
   * Node.js: sends JSON calls through the client's dispatcher without `fetch` (cheaper), when
   * the options give no `fetch` of their own.
   */
  makeRequest?: (dispatcher: Dispatcher) => RequestLike;
  /** The contract `validateResponses: true` validates against; without one, `true` is refused. */
  contract?: Contract;
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
 * Builds a client on the entry point's default transport (see `createClient`) where the options
 * name no `fetch` or `dispatcher`.
 */
export function buildClient(options: ClientOptions, defaults: DefaultTransport): CustomerApiClient {
  const own = options.dispatcher || options.fetch ? undefined : defaults.makeDispatcher?.();
  const config = resolveConfig(options, defaults, own);
  const call = (name: OperationName, args?: CallArgs, opts?: RequestOptions) =>
    callOperation(config, name, args, opts);
  const fetchPage = async (name: OperationName, args: CallArgs, opts?: RequestOptions) =>
    (await call(name, args, opts)).data;
  const methods: Record<string, unknown> = {};
  const withResponse: Record<string, unknown> = {};
  for (const name of Object.keys(ROUTES) as OperationName[]) {
    // Byte operations are not JSON calls: uploads have methods of their own, downloads are links.
    if (ROUTES[name].bytes) continue;
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
      uploadAsset(config, 'putAssetContent', assetId, body, opts),
    putAssetPreview: (assetId: string, body: AssetBody, opts?: UploadOptions) =>
      uploadAsset(config, 'putAssetPreview', assetId, body, opts),
    close: async () => {
      await own?.close();
    },
  };
  return Object.assign(methods, helpers) as unknown as CustomerApiClient;
}

function resolveConfig(
  options: ClientOptions,
  defaults: DefaultTransport,
  own: Dispatcher | undefined,
): CallConfig {
  const apiKey = options.apiKey ?? readEnv('CUSTOMER_API_KEY');
  if (!apiKey) throw new TypeError('Missing API key: pass createClient({ apiKey }) or set CUSTOMER_API_KEY');
  const baseUrl = options.baseUrl ?? readEnv('CUSTOMER_API_BASE_URL') ?? DEFAULT_BASE_URL;
  if (!URL.canParse(baseUrl)) throw new TypeError(`Invalid baseUrl: ${baseUrl}`);
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey,
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    maxRetries: nonNegative('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES),
    backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    validator: resolveValidator(options.validateResponses, defaults.contract),
    headers: { 'user-agent': `customer-api-client/${CLIENT_VERSION} ${runtimeToken()}`, ...options.headers },
    transport: resolveTransport(options, defaults, own),
    etagCache: resolveEtagCache(options.etagCache),
    observers: {
      logger: levelled(options.logger, resolveLogLevel(options.logLevel)),
      onRequest: options.onRequest,
      onResponse: options.onResponse,
    },
  };
}

/** A caller's `fetch` carries every request (it may trace them); otherwise the entry point's way. */
function resolveTransport(
  options: ClientOptions,
  defaults: DefaultTransport,
  own: Dispatcher | undefined,
): Transport {
  const dispatcher = options.dispatcher ?? own;
  const request =
    options.fetch === undefined && dispatcher !== undefined ? defaults.makeRequest?.(dispatcher) : undefined;
  return { fetch: options.fetch ?? defaults.fetch, dispatcher, request };
}

function resolveValidator(
  validate: boolean | Contract | undefined,
  contract: Contract | undefined,
): Validator | undefined {
  if (typeof validate === 'object') return contractValidator(validate);
  if (!validate) return undefined;
  if (!contract) {
    throw new TypeError(
      "validateResponses: true needs the contract's schemas, which the browser build leaves out: pass validateResponses: contract (from @customer-api/contract)",
    );
  }
  return contractValidator(contract);
}

function resolveEtagCache(option: boolean | EtagCacheOptions | undefined): EtagCache | undefined {
  if (!option) return undefined;
  return new EtagCache(option === true ? {} : option);
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}

/** The runtime's `fetch`, looked up per call (so later polyfills count) and called on `globalThis`, as Workers require. */
export const globalFetch: FetchLike = (url, init) => (globalThis.fetch as unknown as FetchLike)(url, init);
