import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { attemptErrorText } from './attempt-errors.js';

/** Longest response body kept in the delivery log. */
export const MAX_RESPONSE_CHARS = 1024;

/** What one HTTP attempt produced. */
export interface SendOutcome {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** The first {@link MAX_RESPONSE_CHARS} characters of the response body. */
  body: string | null;
  durationMs: number;
  retryAfter: string | undefined;
  /**
   * Why the attempt failed without a response (timeout, refused connection, SSRF guard), as one
   * of the fixed texts of `attempt-errors.ts`: it is shown to the tenant.
   */
  error: string | null;
  /** The error behind `error`, with every detail: for the server's log, never for the tenant. */
  failure?: unknown;
}

/** Raised when the send was aborted by {@link SendRequest.abort}: nothing may be recorded. */
export class SendAbortedError extends Error {
  override readonly name = 'SendAbortedError';
}

/** One signed delivery request. */
export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborts without an outcome (a dispatcher killed mid-delivery). */
  abort?: AbortSignal;
}

/** A body's error after its outcome is known (its own destruction) changes nothing. */
function ignoreLateError(): void {}

/**
 * The first {@link MAX_RESPONSE_CHARS} characters of a response body. A longer body is destroyed
 * once they have arrived; a short one is read whole, which keeps the socket for the next request.
 * Events rather than `for await`: an async iterator per response cost more than the rest of the
 * read (dispatcher profile). Once settled, the body keeps a listener that ignores its errors: undici
 * emits one when a body is destroyed before its end, and an `error` event without a listener is an
 * uncaught exception, which would end the dispatcher's process.
 */
function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    const done = (err?: Error) => {
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      body.on('error', ignoreLateError);
      if (err) reject(err);
      else resolve(text.slice(0, MAX_RESPONSE_CHARS));
    };
    const onData = (chunk: unknown) => {
      text += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
      if (text.length < MAX_RESPONSE_CHARS) return;
      done();
      body.destroy();
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(err);
    // Closed without an end or an error (destroyed quietly): as `for await` does, a failure.
    const onClose = () => done(body.readableEnded ? undefined : new Error('response body closed early'));
    body.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

/**
 * POSTs one delivery through `agent` (connection pooling, SSRF guard). Redirects are not
 * followed: a 3xx is a failed attempt like any other non-2xx. The whole attempt, body included,
 * is bounded by `timeoutMs`, so it always ends well before the dispatcher's lease does.
 */
export async function sendDelivery(agent: Dispatcher, req: SendRequest): Promise<SendOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError()), req.timeoutMs);
  const onAbort = () => controller.abort(req.abort?.reason);
  req.abort?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await request(req.url, {
      dispatcher: agent,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'customer-api-webhooks/0',
        ...req.headers,
      },
      body: req.body,
      signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const body = await readCapped(res.body);
    const retryAfter = res.headers['retry-after'];
    return {
      status: res.statusCode,
      body,
      durationMs: elapsed(),
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      error: null,
    };
  } catch (err) {
    if (req.abort?.aborted) throw new SendAbortedError('delivery aborted', { cause: err });
    return {
      status: null,
      body: null,
      durationMs: elapsed(),
      retryAfter: undefined,
      error: attemptErrorText(err, req.timeoutMs),
      failure: err,
    };
  } finally {
    clearTimeout(timer);
    req.abort?.removeEventListener('abort', onAbort);
  }
}

/** The whole attempt took longer than the configured timeout. */
class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}
