import { AsyncResource } from 'node:async_hooks';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceUnavailableError } from '../lib/errors.js';
import { decisionOf, MAX_WINDOWS, type RateLimitDecision } from './decision.js';

/** What one process knows of a key's shared window. */
interface WindowState {
  /** The shared count at the last answer from the store (everything this process sent included). */
  known: number;
  /** When the shared window ends (epoch ms). */
  resetAt: number;
  /** Requests admitted here and not yet sent to the store. */
  pending: number;
  /** Requests on their way to the store. */
  sending: number;
}

/** How often locally admitted requests are sent to the shared store. */
const FLUSH_INTERVAL_MS = 50;

/**
 * A shared-store limiter that spares most requests their round trip to Redis or PostgreSQL.
 * While a key's window is far from used up, a process admits requests on its own count and sends
 * them to the store in one increment every {@link FLUSH_INTERVAL_MS}; at most `slack` (5 % of the
 * limit) may be unsent at a time, and within `slack` of the limit every request asks the store,
 * so the window is exact there. With N processes, a burst can pass the limit by at most
 * (N - 1) x slack. Limits under 20 have no slack: every request asks the store. `now` is the
 * limiter's clock (epoch ms).
 */
export class BatchingLimiter {
  readonly #store: RateLimiterAbstract;
  readonly #max: number;
  readonly #slack: number;
  readonly #windows = new Map<string, WindowState>();
  #timer: NodeJS.Timeout | undefined;
  readonly #flushes = new Set<Promise<void>>();
  readonly #now: () => number;
  /**
   * The context the limiter was made in (the server's start, outside any request): a flush sends
   * many requests' counts at once, so it runs there, not in the context (and the trace) of the
   * request that happened to schedule it.
   */
  readonly #scope = new AsyncResource('RateLimitFlush');

  constructor(store: RateLimiterAbstract, max: number, now: () => number = Date.now) {
    this.#store = store;
    this.#max = max;
    this.#now = now;
    this.#slack = Math.floor(max / 20);
  }

  /** Counts `points` against `key`'s shared window (see the class). */
  async consume(key: string, points = 1): Promise<RateLimitDecision> {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (window && now >= window.resetAt) {
      this.#windows.delete(key);
      window = undefined;
    }
    // Single requests may be admitted locally; a charge of several points always asks the store.
    if (window && points === 1) {
      const unsent = window.pending + window.sending;
      const used = window.known + unsent + 1;
      if (unsent < this.#slack && this.#max - used >= this.#slack) {
        window.pending += 1;
        this.#scheduleFlush();
        return {
          allowed: true,
          limit: this.#max,
          remaining: this.#max - used,
          resetTime: window.resetAt,
          retryAfter: Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
        };
      }
    }
    // This request, with whatever was admitted locally, goes to the store now.
    const toSend = (window?.pending ?? 0) + points;
    if (window) window.pending = 0;
    const res = await this.#send(key, toSend, window);
    return decisionOf(res, this.#max, res.consumedPoints <= this.#max, this.#now());
  }

  /**
   * Gives one point back to `key`'s shared window: from the count not sent yet when there is one,
   * else from the store (`reward`). A store that cannot be reached keeps the point: a refund is
   * never worth an error.
   */
  async refund(key: string): Promise<void> {
    const window = this.#windows.get(key);
    if (window && this.#now() < window.resetAt && window.pending > 0) {
      window.pending -= 1;
      return;
    }
    try {
      await this.#store.reward(key, 1);
      if (window) window.known = Math.max(0, window.known - 1);
    } catch {
      // The point stays counted.
    }
  }

  /** Adds `points` to the shared count; keeps what the store answered. */
  async #send(key: string, points: number, window: WindowState | undefined): Promise<RateLimiterRes> {
    if (window) window.sending += points;
    let res: RateLimiterRes;
    try {
      res = await this.#store.consume(key, points);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        // The store is unreachable: forget the window, so the next request asks again.
        if (this.#windows.get(key) === window) this.#windows.delete(key);
        throw new ServiceUnavailableError(undefined, { cause: err });
      }
      res = err;
    } finally {
      if (window) window.sending -= points;
    }
    const resetAt = this.#now() + Math.max(0, res.msBeforeNext);
    const current = this.#windows.get(key);
    // Same window when the store's reset time agrees within a second; answers may arrive out of order.
    if (current && Math.abs(current.resetAt - resetAt) < 1000) {
      current.known = Math.max(current.known, res.consumedPoints);
    } else if (this.#slack > 0) {
      if (this.#windows.size >= MAX_WINDOWS) this.#sweep();
      this.#windows.set(key, { known: res.consumedPoints, resetAt, pending: 0, sending: 0 });
    }
    return res;
  }

  /** Drops ended windows; when still full, the oldest (a key seen again simply asks the store). */
  #sweep(): void {
    const now = this.#now();
    for (const [key, window] of this.#windows) {
      if (now >= window.resetAt && window.pending === 0 && window.sending === 0) this.#windows.delete(key);
    }
    for (const [key, window] of this.#windows) {
      if (this.#windows.size < MAX_WINDOWS) break;
      if (window.pending === 0 && window.sending === 0) this.#windows.delete(key);
    }
  }

  #scheduleFlush(): void {
    this.#timer ??= this.#scope.runInAsyncScope(() =>
      setTimeout(() => {
        this.#timer = undefined;
        this.#flush();
      }, FLUSH_INTERVAL_MS).unref(),
    );
  }

  #flush(): void {
    for (const [key, window] of this.#windows) {
      if (window.pending === 0) {
        if (this.#now() >= window.resetAt && window.sending === 0) this.#windows.delete(key);
        continue;
      }
      const points = window.pending;
      window.pending = 0;
      const flush = this.#send(key, points, window).then(
        () => {},
        () => {},
      );
      this.#flushes.add(flush);
      void flush.finally(() => this.#flushes.delete(flush));
    }
  }

  /** Sends what is still unsent (shutdown). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flush();
    await Promise.allSettled([...this.#flushes]);
  }
}
