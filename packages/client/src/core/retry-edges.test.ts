import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  errorFromResponse,
  NotFoundError,
  RateLimitedError,
  UnexpectedResponseError,
} from './errors.js';
import { DEFAULT_BACKOFF, isRetryable, retryDelayMs, sleep } from './retry.js';

// The retry policy's edges: the wait between attempts with an abort signal, a closed client, a
// success body that is not JSON, a specification error under a gateway status, and a server hint
// exactly at the longest wait the client accepts.
// Complements retry.test.ts (which replaces `sleep` to record the waits).

describe('the wait between attempts', () => {
  it('ends after the delay when nothing aborts it', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });

  it('rejects at once with the reason of a signal aborted before it began', async () => {
    const reason = new Error('shutting down');
    // An hour: only the abort can end it within the test's timeout.
    await expect(sleep(3_600_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('rejects with the reason as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const waiting = sleep(3_600_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('what is retried', () => {
  it('never retries a call on a closed client, whatever the operation', () => {
    for (const code of ['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']) {
      expect(isRetryable(new ConnectionError('closed', { cause: { code } }), true), code).toBe(false);
    }
    expect(isRetryable(new ConnectionError('reset', { cause: { code: 'ECONNRESET' } }), true)).toBe(true);
  });

  it('retries a gateway error only for retry-safe calls, and never a success body that is not JSON', () => {
    const unexpected = (status: number) =>
      new UnexpectedResponseError({ status, headers: new Headers(), body: '<html>proxy</html>' });
    expect(isRetryable(unexpected(502), true)).toBe(true);
    expect(isRetryable(unexpected(504), true)).toBe(true);
    expect(isRetryable(unexpected(502), false)).toBe(false);
    expect(isRetryable(unexpected(200), true)).toBe(false);
    expect(isRetryable(unexpected(501), true)).toBe(false);
  });

  it('waits a server hint exactly as long as maxRetryAfterMs, and refuses a longer one', () => {
    const limited = (seconds: string) =>
      new RateLimitedError({
        status: 429,
        headers: new Headers({ 'retry-after': seconds }),
        body: { code: 'RATE_LIMITED' },
      });
    expect(retryDelayMs(limited('60'), 0, DEFAULT_BACKOFF)).toBe(60_000);
    expect(retryDelayMs(limited('60.001'), 0, DEFAULT_BACKOFF)).toBeUndefined();
  });

  it('follows the code of a specification error body, whatever gateway status it came with', () => {
    // A proxy that relays the API's error body under its own 504: the body says what happened.
    const notFound = {
      code: 'NOT_FOUND',
      detail: 'No such page',
      requestId: 'req_1',
      status: 404,
      title: 'Not Found',
      type: 'about:blank',
    };
    const error = errorFromResponse(504, new Headers(), notFound);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(isRetryable(error, true)).toBe(false);
  });
});
