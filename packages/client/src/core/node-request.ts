// Node.js only (imported by the `node` entry point): JSON calls through undici's `request` API
// instead of its `fetch`, which builds a WHATWG Request, Response, Headers and a web stream per
// call (most of the client's own cost). What `fetch` did for us is done here the same way:
// default `accept-encoding` and decoding, and following redirects.
import { EventEmitter } from 'node:events';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import { type Dispatcher, request } from 'undici';
import type { RawResponse, RequestLike, RequestLikeInit } from './transport.js';

/** `fetch` gives up after this many redirects. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers `fetch` drops when a redirect turns the request into a GET without a body. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];
/** `fetch` refuses a response with more codings than this (resource exhaustion). */
const MAX_CODINGS = 5;

// As lenient as `fetch` (and cURL): a truncated but otherwise valid stream still decodes.
const ZLIB_LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};
const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

type Decoder = (bytes: Uint8Array) => Promise<Uint8Array>;

const DECODERS: Record<string, Decoder> = {
  gzip: (bytes) => gunzip(bytes, ZLIB_LENIENT),
  'x-gzip': (bytes) => gunzip(bytes, ZLIB_LENIENT),
  // `deflate` is meant to be zlib-wrapped; servers that send it raw are read too, as by `fetch`.
  deflate: (bytes) =>
    ((bytes[0] ?? 0) & 0x0f) === 0x08 ? inflate(bytes, ZLIB_LENIENT) : inflateRaw(bytes, ZLIB_LENIENT),
  br: (bytes) => brotli(bytes, BROTLI_LENIENT),
};

/**
 * Sends requests with undici's `request` through `dispatcher`, reading the whole body as text.
 * A request is stopped through an `EventEmitter`, which undici takes as a `signal`.
 */
export function undiciRequest(dispatcher: Dispatcher): RequestLike {
  return (url, init) => {
    const signal = new EventEmitter();
    const state = { aborted: false };
    return {
      response: send(dispatcher, url, init, signal, state),
      abort: () => {
        state.aborted = true;
        signal.emit('abort');
      },
    };
  };
}

async function send(
  dispatcher: Dispatcher,
  url: string,
  init: RequestLikeInit,
  signal: EventEmitter,
  state: { aborted: boolean },
): Promise<RawResponse> {
  const headers = hasHeader(init.headers, 'accept-encoding')
    ? init.headers
    : { ...init.headers, 'accept-encoding': defaultAcceptEncoding(url) };
  let target = { url, init: { ...init, headers } };
  for (let redirects = 0; ; redirects++) {
    const response = await request(target.url, {
      method: target.init.method as Dispatcher.HttpMethod,
      headers: target.init.headers,
      body: target.init.body,
      signal,
      dispatcher,
    });
    const location = REDIRECT_STATUSES.has(response.statusCode) ? response.headers.location : undefined;
    if (typeof location !== 'string') {
      const text = await readText(response.headers['content-encoding'], response.body);
      return rawResponse(response.statusCode, response.headers, text);
    }
    await response.body.dump();
    if (redirects >= MAX_REDIRECTS) throw new TypeError('redirect count exceeded');
    // Stopped while the redirect's body was read: the next request would not hear of it.
    if (state.aborted) throw new TypeError('aborted');
    target = redirected(target.url, target.init, response.statusCode, location);
  }
}

/** What `fetch` asks for when the caller does not say: brotli only over TLS. */
function defaultAcceptEncoding(url: string): string {
  return url.startsWith('https:') ? 'br, gzip, deflate' : 'gzip, deflate';
}

const CREDENTIALS = ['x-api-key', 'authorization', 'cookie', 'proxy-authorization'];

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/**
 * The next request of a redirect, as `fetch` makes it: 303 (and 301/302 after a POST) becomes a
 * GET without body or body headers. Another origin (another host, port or scheme) gets none of
 * the credentials: not `authorization`, `cookie` or `proxy-authorization` (as `fetch` drops them),
 * and not the API key either (`fetch` would send it on: a redirect must not hand the key to a
 * third party).
 */
function redirected(
  from: string,
  init: RequestLikeInit,
  status: number,
  location: string,
): { url: string; init: RequestLikeInit } {
  const url = new URL(location, from);
  const headers = { ...init.headers };
  let { method, body } = init;
  if (
    (status === 303 && method !== 'GET' && method !== 'HEAD') ||
    ((status === 301 || status === 302) && method === 'POST')
  ) {
    method = 'GET';
    body = undefined;
    for (const key of Object.keys(headers)) if (BODY_HEADERS.includes(key.toLowerCase())) delete headers[key];
  }
  if (url.origin !== new URL(from).origin) {
    for (const key of Object.keys(headers)) if (CREDENTIALS.includes(key.toLowerCase())) delete headers[key];
  }
  return { url: url.href, init: { ...init, method, body, headers } };
}

type HeaderObject = Record<string, string | string[] | undefined>;

/**
 * The response with its `Headers` built on first use: a call that only returns the body reads
 * a header or two, and building `Headers` costs several microseconds (more on Node 20).
 */
function rawResponse(status: number, source: HeaderObject, text: string): RawResponse {
  let built: Headers | undefined;
  return {
    status,
    text,
    get headers() {
      built ??= toHeaders(source);
      return built;
    },
    // undici's names are lower case; a repeated header is joined as `Headers.get` joins it.
    header: (name) => {
      const value = source[name];
      if (value === undefined) return null;
      return typeof value === 'string' ? value : value.join(', ');
    },
  };
}

/** undici's header object (a repeated header is an array) as the `Headers` the client exposes. */
function toHeaders(source: HeaderObject): Headers {
  const headers = new Headers();
  for (const name of Object.keys(source)) {
    const value = source[name];
    if (typeof value === 'string') headers.append(name, value);
    else if (value !== undefined) for (const item of value) headers.append(name, item);
  }
  return headers;
}

type Body = Awaited<ReturnType<typeof request>>['body'];

/** The body as text, decoded from the response's content codings when it has any (in reverse order). */
async function readText(contentEncoding: string | string[] | undefined, body: Body): Promise<string> {
  if (contentEncoding === undefined) return body.text();
  const codings = String(contentEncoding).toLowerCase().split(',');
  if (codings.length > MAX_CODINGS) {
    await body.dump();
    throw new TypeError(
      `too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`,
    );
  }
  let bytes: Uint8Array = await body.bytes();
  // An unknown coding leaves the body as it came, as `fetch` does.
  const decoders = codings.reverse().map((coding) => DECODERS[coding.trim()]);
  if (decoders.every((decoder) => decoder !== undefined)) {
    for (const decoder of decoders) bytes = await decoder(bytes);
  }
  return new TextDecoder().decode(bytes);
}
