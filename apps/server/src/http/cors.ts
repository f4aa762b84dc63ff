import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError } from '../lib/errors.js';
import { REPLAYED_HEADER } from './idempotency-key.js';

/** The methods of the API's routes: a preflight admits all of them, whatever the path (decision 0215). */
export const CORS_ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Request headers a page may send: the API's own (`x-api-key`, `Idempotency-Key`, `Content-Type`),
 * the client's (`Accept`, `User-Agent`, W3C trace context) and the conditional headers (`If-None-Match`, `If-Match`) and the range headers of the signed download
 * links.
 */
export const CORS_ALLOWED_HEADERS = [
  'x-api-key',
  'content-type',
  'idempotency-key',
  'accept',
  'user-agent',
  'traceparent',
  'tracestate',
  'range',
  'if-range',
  'if-none-match',
  'if-match',
] as const;

/** Response headers a page may read beyond the CORS-safelisted ones: every header the API sends. */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  REPLAYED_HEADER,
  'x-oauth-scopes',
  'deprecation',
  'sunset',
  'traceparent',
  'etag',
  'content-range',
  'accept-ranges',
] as const;

/** How long a browser may reuse a preflight's answer, in seconds (Chromium's own ceiling). */
export const CORS_MAX_AGE_S = 7200;

const EXPOSED = CORS_EXPOSED_HEADERS.join(', ');
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': CORS_ALLOWED_METHODS.join(', '),
  'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
  'access-control-max-age': String(CORS_MAX_AGE_S),
};

/**
 * Admits browser pages of the listed origins (`CORS_ALLOWED_ORIGINS`). Every response to such a
 * page, errors included, names its origin and exposes the API's headers; a preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) is answered 204 before authentication and rate limiting,
 * since browsers send it without the key. A preflight from any other origin is 403 FORBIDDEN, and
 * no response to another origin carries a CORS header. Register at the root, before the hooks
 * that may refuse a request.
 */
export function registerCors(app: FastifyInstance, allowedOrigins: readonly string[]): void {
  const allowed = new Set(allowedOrigins);
  const originOf = (request: FastifyRequest): string | undefined => {
    const origin = request.headers.origin;
    return typeof origin === 'string' && allowed.has(origin) ? origin : undefined;
  };

  app.options('*', async (request, reply) => {
    const requestedMethod = request.headers['access-control-request-method'];
    const origin = request.headers.origin;
    if (typeof requestedMethod !== 'string' || typeof origin !== 'string')
      throw new NotFoundError(`No route OPTIONS ${request.url.split('?')[0]}.`);
    if (!originOf(request))
      throw new ForbiddenError(
        `Cross-origin requests from ${origin} are not allowed: the server's CORS_ALLOWED_ORIGINS does not list this origin.`,
      );
    return reply.code(204).headers(PREFLIGHT_HEADERS).send();
  });

  if (allowed.size === 0) return;
  app.addHook('onSend', async (request, reply, payload) => {
    addCorsHeaders(allowedOrigins, request, reply);
    return payload;
  });
}

/**
 * Sets the CORS headers of one response: `Vary: Origin` whenever origins are listed, and the
 * origin and the exposed headers when the request's origin is one of them. {@link registerCors}
 * does it for every routed response; Fastify's `frameworkErrors` must call it itself.
 */
export function addCorsHeaders(
  allowedOrigins: readonly string[],
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (allowedOrigins.length === 0) return;
  addVary(reply, 'Origin');
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || !allowedOrigins.includes(origin)) return;
  reply.header('access-control-allow-origin', origin);
  if (request.method !== 'OPTIONS') reply.header('access-control-expose-headers', EXPOSED);
}

/** Adds `name` to the reply's `Vary` unless it is there (or `*` is). */
function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const value = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  const names = value
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('*') || names.includes(name.toLowerCase())) return;
  reply.header('vary', value ? `${value}, ${name}` : name);
}
