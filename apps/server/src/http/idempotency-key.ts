import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../lib/errors.js';
import { requestHash } from '../lib/request-hash.js';

/** The request header naming an idempotent write (Stripe's name, as the IETF draft's). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The response header marking a replayed first response. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1 to 255 visible ASCII characters (no space, no control character). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's `Idempotency-Key`, or undefined without one. A present but malformed key is
 * 400 VALIDATION_ERROR about the headers: empty, longer than 255, or holding anything but
 * visible ASCII (a repeated header arrives joined with `, ` and fails on the space).
 */
export function readIdempotencyKey(request: FastifyRequest): string | undefined {
  const value = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  const message =
    'Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces or control characters).';
  throw ValidationError.of('headers', message, [IDEMPOTENCY_KEY_HEADER]);
}

/** What makes two requests "the same" for one key: method, path (no query) and body. */
export function requestFingerprint(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? request.url;
  return requestHash({ method: request.method, path, body: request.body ?? null });
}
