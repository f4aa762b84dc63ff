import type { Dispatcher } from 'undici';
import { explainBlockedRequest } from './browser.js';
import { ConnectionError, TimeoutError } from './errors.js';

/** The subset of `Response` the client reads; satisfied by undici's and Node's global `fetch`. */
export interface FetchResponseLike {
  readonly status: number;
  readonly headers: { forEach(callback: (value: string, key: string) => void): void };
  text(): Promise<string>;
}

/**
 * The request the client hands to `fetch`. When the client was given a `dispatcher` (or owns its
 * Agent), the init also carries it as `dispatcher`: it is left out of this type so that Node's
 * global `fetch`, typed against the undici 6 bundled with Node 20, is accepted as it is.
 */
export interface FetchInitLike {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/**
 * A `fetch` implementation: undici's `fetch` (the default), Node's global `fetch`, or a wrapper
 * adding tracing. It receives the absolute URL and the init shown in {@link FetchInitLike}. A
 * `dispatcher` given to the client must suit this `fetch` (Node 20's global `fetch` bundles
 * undici 6, whose dispatchers differ from undici 7's).
 */
export type FetchLike = (url: string, init: FetchInitLike) => Promise<FetchResponseLike>;

/** One HTTP exchange, before any interpretation. */
export interface RawResponse {
  status: number;
  /** The response headers; the Node request path builds them only when first read. */
  readonly headers: Headers;
  /** One header's value as `headers.get` gives it, without building `headers`. */
  header(name: string): string | null;
  text: string;
}

/** A raw request body (asset uploads); JSON calls send strings. */
export type UploadBody = Blob | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** What one attempt needs. */
export interface AttemptInit {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | UploadBody | undefined;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** One request without a body or with a JSON text body, as {@link RequestLike} receives it. */
export interface RequestLikeInit {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A request a {@link RequestLike} has started. */
export interface SentRequest {
  /** The status, headers and whole body; rejects with the underlying error. */
  response: Promise<RawResponse>;
  /** Stops the request, or the reading of its body (`response` then rejects). */
  abort(): void;
}

/**
 * Sends one request and reads its whole body: the Node.js entry point's way of sending JSON
 * calls (undici's `request` API, cheaper than `fetch`, and stopped without an `AbortSignal`,
 * whose creation alone costs tens of microseconds on Node 20).
 */
export type RequestLike = (url: string, init: RequestLikeInit) => SentRequest;

/** How attempts reach the network. */
export interface Transport {
  fetch: FetchLike;
  dispatcher: Dispatcher | undefined;
  /** When set, JSON calls (no body or a string body) go through it; uploads always use `fetch`. */
  request?: RequestLike | undefined;
}

/** Why an attempt was stopped (timeout or the caller's signal), and how to stop what it sent. */
interface Stop {
  aborted: boolean;
  reason: unknown;
  cancel: () => void;
}

/**
 * Sends one attempt and reads the whole body under one timer: a server that sends headers and
 * then stalls the body times out too. Rejects with {@link TimeoutError}, with the caller's abort
 * reason (the standard `AbortError` unless they chose another), or with {@link ConnectionError}
 * (in a browser, naming CORS when that is the likely cause: see `explainBlockedRequest`).
 */
export async function sendAttempt(transport: Transport, init: AttemptInit): Promise<RawResponse> {
  const caller = init.signal;
  if (caller?.aborted) throw caller.reason;
  const stop: Stop = { aborted: false, reason: undefined, cancel: () => {} };
  const abort = (reason: unknown) => {
    if (stop.aborted) return;
    stop.aborted = true;
    stop.reason = reason;
    stop.cancel();
  };
  const timer = setTimeout(() => abort(new TimeoutError(init.timeoutMs)), init.timeoutMs);
  const onAbort = () => abort(caller?.reason);
  caller?.addEventListener('abort', onAbort, { once: true });
  try {
    return await send(transport, init, stop);
  } catch (error) {
    if (stop.aborted) throw stop.reason;
    const blocked = await explainBlockedRequest(init.url, error, caller);
    if (caller?.aborted) throw caller.reason;
    const message = blocked?.message ?? `Request to ${new URL(init.url).origin} failed: ${describe(error)}`;
    throw new ConnectionError(message, { cause: error, corsBlocked: blocked?.corsBlocked ?? false });
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onAbort);
  }
}

/** Starts the request on the transport's cheapest path for its body; `stop.cancel` stops it. */
function send(transport: Transport, init: AttemptInit, stop: Stop): Promise<RawResponse> {
  const { body } = init;
  if (transport.request !== undefined && (body === undefined || typeof body === 'string')) {
    const sent = transport.request(init.url, { method: init.method, headers: init.headers, body });
    stop.cancel = sent.abort;
    return sent.response;
  }
  const controller = new AbortController();
  stop.cancel = () => controller.abort(stop.reason);
  return viaFetch(transport, init, controller.signal);
}

async function viaFetch(transport: Transport, init: AttemptInit, signal: AbortSignal): Promise<RawResponse> {
  const fetchInit = {
    method: init.method,
    headers: init.headers,
    signal,
    ...(init.body === undefined ? {} : { body: init.body }),
    // A streamed body goes out while it is read (fetch requires saying so).
    ...(isStream(init.body) ? { duplex: 'half' } : {}),
    ...(transport.dispatcher ? { dispatcher: transport.dispatcher } : {}),
  };
  const response = await transport.fetch(init.url, fetchInit as FetchInitLike & { dispatcher?: Dispatcher });
  const text = await response.text();
  const headers = new Headers();
  response.headers.forEach((value, key) => {
    headers.append(key, value);
  });
  return { status: response.status, headers, header: (name) => headers.get(name), text };
}

function isStream(body: AttemptInit['body']): boolean {
  return (
    typeof body === 'object' && body !== null && !(body instanceof Uint8Array) && !(body instanceof Blob)
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
