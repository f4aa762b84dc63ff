import { MAX_WINDOWS, type RateLimitDecision } from './decision.js';

/**
 * Fixed windows counted in this process, on an injected clock (epoch ms): a window starts at a
 * key's first request and lasts `windowMs`. Ended windows are swept whenever the map has grown
 * past its last size by {@link MAX_WINDOWS}, so keys seen once do not accumulate.
 */
export class MemoryWindows {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { used: number; resetAt: number }>();
  #sweepAt = MAX_WINDOWS;

  constructor(max: number, windowMs: number, now: () => number) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts `points` against `key`'s window; refused once the window holds more than the limit. */
  consume(key: string, points = 1): RateLimitDecision {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now >= window.resetAt) {
      if (this.#windows.size >= this.#sweepAt) this.#sweep(now);
      window = { used: 0, resetAt: now + this.#windowMs };
      this.#windows.set(key, window);
    }
    window.used += points;
    const msLeft = window.resetAt - now;
    return {
      allowed: window.used <= this.#max,
      limit: this.#max,
      remaining: Math.max(0, this.#max - window.used),
      resetTime: window.resetAt,
      retryAfter: Math.max(1, Math.ceil(msLeft / 1000)),
    };
  }

  /** Gives one point back to `key`'s window, if it is still the one that counted it. */
  refund(key: string): void {
    const window = this.#windows.get(key);
    if (window && this.#now() < window.resetAt && window.used > 0) window.used -= 1;
  }

  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (now >= window.resetAt) this.#windows.delete(key);
    this.#sweepAt = this.#windows.size + MAX_WINDOWS;
  }
}
