import {
  ConflictError,
  ConnectionError,
  CustomerApiError,
  InternalError,
  parseRetryAfterSeconds,
  RateLimitedError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from './errors.js';

/** Delays between retries. */
export interface BackoffOptions {
  /** Delay before the first retry when the server gives no hint, in ms (default 500). Doubles per retry. */
  initialDelayMs?: number;
  /** Upper bound of the exponential delay, in ms (default 8,000). */
  maxDelayMs?: number;
  /**
   * Longest server-requested wait (`Retry-After`, rate-limit `retryAfter`) the client sleeps
   * through, in ms (default 60,000). A longer request fails at once with the error instead.
   */
  maxRetryAfterMs?: number;
}

/** {@link BackoffOptions} with every default filled in. */
export type Backoff = Required<BackoffOptions>;

/** Defaults of {@link BackoffOptions}. */
export const DEFAULT_BACKOFF: Backoff = { initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** undici's codes for a dispatcher closed by `client.close()`: retrying cannot help. */
const CLOSED_CLIENT_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

/** Gateway statuses outside the specification that mean "not processed, try again" when safe. */
const TRANSIENT_GATEWAY_STATUSES = new Set([502, 504]);

/**
 * Whether a failed attempt may be repeated. 429 and 503 mean the server did not do the work, so
 * they are retried for every operation, as is a 409 carrying `Retry-After` (the same
 * `Idempotency-Key` is still running: the retry gets its response). Connection errors, timeouts,
 * 500 and gateway errors (502, 504) may hide work that was done, so they are retried only for
 * `retrySafe` calls: reads, deletes and restores, and every POST and PATCH, which carry an
 * `Idempotency-Key`. A refused connection sent nothing and is always safe. 400, 401, 403, 404,
 * a final 409 and 412 are never retried: repeating cannot change the answer (a stale `If-Match`
 * stays stale until the resource is read again); nor is a call on a closed client, nor one a
 * browser refused to the page's origin (CORS). A 304 is a success, not an error.
 */
export function isRetryable(error: unknown, retrySafe: boolean): boolean {
  if (error instanceof RateLimitedError || error instanceof ServiceUnavailableError) return true;
  if (error instanceof ConflictError) return error.headers.get('retry-after') !== null;
  if (error instanceof ConnectionError) {
    if (error.corsBlocked) return false;
    if (error.errno !== undefined && CLOSED_CLIENT_CODES.has(error.errno)) return false;
    return retrySafe || error.errno === 'ECONNREFUSED';
  }
  if (error instanceof InternalError) return retrySafe;
  if (error instanceof UnexpectedResponseError)
    return retrySafe && TRANSIENT_GATEWAY_STATUSES.has(error.status);
  return false;
}

/**
 * Milliseconds to wait before retry number `retryIndex` (0-based), or `undefined` when the server
 * asked for a wait longer than `maxRetryAfterMs` (retrying sooner would only fail again).
 * A server hint is honoured exactly; otherwise the delay grows exponentially with "equal jitter"
 * (between half and all of the exponential step) so that many clients do not retry in lockstep.
 */
export function retryDelayMs(
  error: unknown,
  retryIndex: number,
  backoff: Backoff,
  random: () => number = Math.random,
): number | undefined {
  const hintSeconds = serverRetryHintSeconds(error);
  if (hintSeconds !== undefined) {
    const hintMs = Math.ceil(hintSeconds * 1000);
    return hintMs > backoff.maxRetryAfterMs ? undefined : hintMs;
  }
  const step = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * 2 ** retryIndex);
  return Math.round(step / 2 + (step / 2) * random());
}

function serverRetryHintSeconds(error: unknown): number | undefined {
  if (error instanceof RateLimitedError) return error.retryAfter;
  if (error instanceof CustomerApiError) return parseRetryAfterSeconds(error.headers.get('retry-after'));
  return undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
