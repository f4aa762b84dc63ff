import type { OperationName } from '@customer-api/contract';
import { ROUTES, type RouteInfo } from '../generated/routes.js';
import {
  type CacheSlot,
  type ConditionalOptions,
  cacheSlot,
  conditionalHeaders,
  remember,
  tagEtag,
} from './conditional.js';
import { errorFromResponse, UnexpectedResponseError } from './errors.js';
import type { EtagCache } from './etag-cache.js';
import { exchange, type Observers } from './exchange.js';
import { queryString } from './query.js';
import { type Backoff, isRetryable, retryDelayMs, sleep } from './retry.js';
import type { RawResponse, Transport } from './transport.js';
import type { ApiResponse, RequestOptions } from './types.js';
import { randomUuid } from './uuid.js';
import type { Validator } from './validate.js';

/** Settings shared by every call of one client. */
export interface CallConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  backoff: Backoff;
  /** Checks success bodies against the contract, when the caller asked for it. */
  validator: Validator | undefined;
  headers: Record<string, string>;
  transport: Transport;
  observers: Observers;
  /** The conditional-GET cache, when the client keeps one. */
  etagCache: EtagCache | undefined;
}

/** The untyped input of a call (the typed surface lives in `client.ts`). */
export interface CallArgs {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

const REQUEST_ID = Symbol.for('@customer-api/client.requestId');

/**
 * The request id of a successful result (the `x-request-id` of the response it came from), or
 * `undefined` for values the client did not return. It is stored as a non-enumerable symbol
 * property, so it never shows up in `JSON.stringify`, spreads or `Object.keys`.
 */
export function getRequestId(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  return (result as { [REQUEST_ID]?: string })[REQUEST_ID];
}

/** Attaches the response's request id to a result (see {@link getRequestId}); returns the result. */
export function tagRequestId<T extends object>(data: T, requestId: string | undefined): T {
  Object.defineProperty(data, REQUEST_ID, { value: requestId, enumerable: false });
  return data;
}

/** Performs one operation: builds the request, retries what is safe, returns the typed body. */
export async function callOperation(
  config: CallConfig,
  name: OperationName,
  args: CallArgs = {},
  options: RequestOptions & ConditionalOptions = {},
): Promise<ApiResponse<unknown>> {
  const route = ROUTES[name];
  const body = requestBody(route, args.body);
  // One key per call, chosen before the first attempt: every retry repeats it, so the server
  // does the work at most once and answers retries with the first response.
  const idempotencyKey = takesIdempotencyKey(route) ? (options.idempotencyKey ?? randomUuid()) : undefined;
  const url = buildUrl(config.baseUrl, route.path, args.params, args.query);
  const slot = cacheSlot(config.etagCache, route, config.apiKey, url, options);
  const init = {
    url,
    method: route.method,
    headers: {
      ...requestHeaders(config, options, body !== undefined, idempotencyKey),
      ...conditionalHeaders(name, route, options, slot),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: options.timeoutMs ?? config.timeoutMs,
    signal: options.signal,
  };
  const maxRetries = options.maxRetries ?? config.maxRetries;
  for (let attempt = 1; ; attempt++) {
    try {
      const raw = await exchange(config.transport, config.observers, name, attempt, init);
      return interpret(config, name, raw, attempt, slot);
    } catch (error) {
      const retry =
        attempt <= maxRetries && isRetryable(error, route.idempotent || idempotencyKey !== undefined);
      const ms = retry ? retryDelayMs(error, attempt - 1, config.backoff) : undefined;
      if (ms === undefined) throw error;
      await sleep(ms, options.signal);
    }
  }
}

/**
 * Mutations always send a JSON object (restores send `{}`, as the specification asks). An
 * operation whose body takes an `idempotencyKey` gets a random one when the caller gave none;
 * it is chosen once, so every retry of this call repeats the same key.
 */
function requestBody(route: RouteInfo, body: unknown): unknown {
  if (!route.body) return undefined;
  const value = body ?? {};
  if (!route.bodyIdempotencyKey || typeof value !== 'object' || value === null) return value;
  if ((value as { idempotencyKey?: unknown }).idempotencyKey !== undefined) return value;
  return { ...value, idempotencyKey: randomUuid() };
}

/** POST and PATCH carry `Idempotency-Key`; the server ignores it elsewhere. */
function takesIdempotencyKey(route: RouteInfo): boolean {
  return route.method === 'POST' || route.method === 'PATCH';
}

function requestHeaders(
  config: CallConfig,
  options: RequestOptions,
  hasBody: boolean,
  idempotencyKey: string | undefined,
): Record<string, string> {
  return {
    accept: 'application/json',
    ...config.headers,
    ...options.headers,
    'x-api-key': config.apiKey,
    ...(hasBody ? { 'content-type': 'application/json' } : {}),
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
  };
}

/** Joins the base URL (which may carry a path prefix) with the route path and query string. */
export function buildUrl(
  baseUrl: string,
  path: string,
  params: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
): string {
  const filled = path.replace(/:([A-Za-z0-9_]+)/g, (_match, key: string) => {
    const value = params?.[key];
    // An empty id would collapse the path onto another route (/pages//restore -> /pages/restore).
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') {
      throw new TypeError(`Missing path parameter "${key}" for ${path}`);
    }
    return encodeURIComponent(String(value));
  });
  return `${baseUrl.replace(/\/+$/, '')}${filled}${queryString(query)}`;
}

/**
 * A 2xx is the result, and a 304 too: it answers a conditional read with the client's cached
 * copy (parsed again, so callers never share one object), or with no body when the caller named
 * the tag. Everything else is the error of its status.
 */
function interpret(
  config: CallConfig,
  name: OperationName,
  raw: RawResponse,
  attempts: number,
  slot: CacheSlot | undefined,
): ApiResponse<unknown> {
  const kept = raw.status === 304 ? slot?.kept : undefined;
  const fromCache = kept !== undefined;
  const etag = raw.header('etag') ?? kept?.etag;
  const text = kept ? kept.text : raw.text;
  const body = parseBody(text);
  if ((raw.status < 200 || raw.status > 299) && raw.status !== 304) {
    if (slot) remember(slot, raw.status, etag, raw.text);
    throw errorFromResponse(raw.status, raw.headers, body);
  }
  if (body === text && text !== '') {
    throw new UnexpectedResponseError({ status: raw.status, headers: raw.headers, body });
  }
  const notModified = raw.status === 304 && !fromCache;
  const data =
    config.validator && !notModified
      ? validate(config.validator, name, fromCache ? 200 : raw.status, raw, body)
      : body;
  if (slot) remember(slot, raw.status, etag, raw.text);
  const requestId = raw.header('x-request-id') ?? undefined;
  if (typeof data === 'object' && data !== null) tagEtag(tagRequestId(data, requestId), etag);
  // `headers` is read through: a method that returns only `data` never builds them.
  return {
    data,
    status: raw.status,
    get headers() {
      return raw.headers;
    },
    requestId,
    attempts,
    etag,
    fromCache,
  };
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function validate(
  validator: Validator,
  name: OperationName,
  status: number,
  raw: RawResponse,
  body: unknown,
): unknown {
  const result = validator(name, status, body);
  if (!result) throw new UnexpectedResponseError({ status: raw.status, headers: raw.headers, body });
  return result.data;
}
