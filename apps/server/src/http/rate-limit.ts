import type { RateLimitDetails } from '@customer-api/contract';
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { RateLimitedError, ServiceUnavailableError } from './errors.js';

/** Outcome of counting one request against its caller's window. */
export interface RateLimitDecision extends RateLimitDetails {
  allowed: boolean;
}

/** Fixed-window request counter per caller key. */
export interface RateLimiter {
  /** Which store holds the counters. */
  readonly store: 'memory' | 'postgres' | 'redis';
  /** Length of a window in seconds (the `w` of `RateLimit-Policy`). */
  readonly windowSeconds: number;
  /** Resolves once the store accepts commands (rejects when Redis cannot be reached at start). */
  ready(): Promise<void>;
  /** Rejects while a shared store outside the database (Redis) cannot be reached. */
  ping?(): Promise<void>;
  /** Counts `points` (default 1) against `key`'s window. */
  consume(key: string, points?: number): Promise<RateLimitDecision>;
  /**
   * True while this process knows `key`'s window is used up (it answered it 429 and the window
   * has not ended): a caller may refuse work before spending anything on the request.
   */
  exhausted(key: string): boolean;
  close(): Promise<void>;
}

/** Where the counters live. */
export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /** Redis URL: counters shared through Redis (preferred when set). */
  redisUrl?: string | undefined;
  /** PostgreSQL pool: counters shared through the `rate_limits` table. */
  pool?: pg.Pool | undefined;
  /** Told when Redis is lost (at most every 30 s while it stays lost) and when it is back. */
  onRedisState?: (state: 'lost' | 'back', err?: Error) => void;
}

/** Least time between two "Redis lost" reports of one outage. */
const REDIS_REPORT_MS = 30_000;

/**
 * Builds the limiter. Memory only for embedded PGlite, which is one process by design; with a
 * PostgreSQL server several processes may run, so counters go to Redis or PostgreSQL.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  return rememberExhausted({ ...createStoreLimiter(options), windowSeconds: options.windowMs / 1000 });
}

function createStoreLimiter(options: RateLimitOptions): Omit<RateLimiter, 'exhausted' | 'windowSeconds'> {
  const base = { points: options.max, duration: options.windowMs / 1000, keyPrefix: 'rl' };
  if (options.redisUrl) {
    const redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    watchRedis(redis, options.onRedisState);
    // While Redis is unreachable each process counts on its own (decided: a degraded limit, not
    // 503 on every request); the shared counts resume when it is back.
    const limiter = new RateLimiterRedis({
      ...base,
      storeClient: redis,
      useRedisPackage: false,
      insuranceLimiter: new RateLimiterMemory(base),
    });
    return {
      ...batched('redis', limiter, options.max, {
        ready: () => redisReady(redis),
        close: async () => redis.disconnect(),
      }),
      ping: async () => {
        await redis.ping();
      },
    };
  }
  if (options.pool) {
    const limiter = new RateLimiterPostgres({
      ...base,
      storeClient: options.pool,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
    });
    return batched('postgres', limiter, options.max, { ready: async () => {}, close: async () => {} });
  }
  return wrap('memory', new RateLimiterMemory(base), options.max, async () => {});
}

/** Reports a lost connection (once per {@link REDIS_REPORT_MS}) and its return. */
function watchRedis(redis: Redis, report: RateLimitOptions['onRedisState']): void {
  let connected = false;
  let reportedAt = 0;
  redis.on('error', (err: Error) => {
    if (Date.now() - reportedAt < REDIS_REPORT_MS) return;
    reportedAt = Date.now();
    report?.('lost', err);
  });
  redis.on('close', () => {
    if (connected && Date.now() - reportedAt >= REDIS_REPORT_MS) {
      reportedAt = Date.now();
      report?.('lost');
    }
    connected = false;
  });
  redis.on('ready', () => {
    if (reportedAt > 0) report?.('back');
    reportedAt = 0;
    connected = true;
  });
}

/** Waits for the connection: with the offline queue off, commands sent earlier would fail. */
function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Redis not reachable within ${timeoutMs} ms`)),
      timeoutMs,
    );
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function decisionOf(res: RateLimiterRes, max: number, allowed: boolean): RateLimitDecision {
  const msBeforeNext = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit: max,
    remaining: Math.max(0, res.remainingPoints),
    resetTime: Date.now() + msBeforeNext,
    retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}

/**
 * Answers a key whose window is known to be used up from memory until the window ends: a window
 * only fills up, so the answer cannot change, and a caller flooding past its limit (or garbage
 * keys from one address) then costs no round trip to Redis or PostgreSQL. Bounded like the
 * batching windows; an evicted key simply asks the store again.
 */
function rememberExhausted(limiter: Omit<RateLimiter, 'exhausted'>): RateLimiter {
  const refused = new Map<string, RateLimitDecision>();
  const current = (key: string): RateLimitDecision | undefined => {
    const decision = refused.get(key);
    if (!decision) return undefined;
    const msLeft = decision.resetTime - Date.now();
    if (msLeft > 0) return { ...decision, retryAfter: Math.max(1, Math.ceil(msLeft / 1000)) };
    refused.delete(key);
    return undefined;
  };
  return {
    ...limiter,
    exhausted: (key) => current(key) !== undefined,
    consume: async (key, points) => {
      const known = current(key);
      if (known) return known;
      const decision = await limiter.consume(key, points);
      if (!decision.allowed) {
        if (refused.size >= MAX_WINDOWS) refused.delete(refused.keys().next().value as string);
        refused.set(key, decision);
      }
      return decision;
    },
  };
}

function wrap(
  store: RateLimiter['store'],
  limiter: RateLimiterAbstract,
  max: number,
  close: () => Promise<void>,
): Omit<RateLimiter, 'exhausted' | 'windowSeconds'> {
  return {
    store,
    close,
    ready: async () => {},
    consume: async (key, points = 1) => {
      try {
        return decisionOf(await limiter.consume(key, points), max, true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decisionOf(err, max, false);
        throw new ServiceUnavailableError(undefined, { cause: err });
      }
    },
  };
}

/** A shared store behind a {@link BatchingLimiter}; `close` runs after the last counts are sent. */
function batched(
  store: RateLimiter['store'],
  limiter: RateLimiterAbstract,
  max: number,
  lifecycle: Pick<RateLimiter, 'ready' | 'close'>,
): Omit<RateLimiter, 'exhausted' | 'windowSeconds'> {
  const batching = new BatchingLimiter(limiter, max);
  return {
    store,
    ready: lifecycle.ready,
    consume: (key, points) => batching.consume(key, points),
    close: async () => {
      await batching.close();
      await lifecycle.close();
    },
  };
}

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
/** Keys whose window a process remembers (a flood of new keys cannot grow memory beyond this). */
const MAX_WINDOWS = 10_000;

/**
 * A shared-store limiter that spares most requests their round trip to Redis or PostgreSQL.
 * While a key's window is far from used up, a process admits requests on its own count and sends
 * them to the store in one increment every {@link FLUSH_INTERVAL_MS}; at most `slack` (5 % of the
 * limit) may be unsent at a time, and within `slack` of the limit every request asks the store,
 * so the window is exact there. With N processes, a burst can pass the limit by at most
 * (N - 1) x slack. Limits under 20 have no slack: every request asks the store. Exported for tests.
 */
export class BatchingLimiter {
  readonly #store: RateLimiterAbstract;
  readonly #max: number;
  readonly #slack: number;
  readonly #windows = new Map<string, WindowState>();
  #timer: NodeJS.Timeout | undefined;
  readonly #flushes = new Set<Promise<void>>();

  constructor(store: RateLimiterAbstract, max: number) {
    this.#store = store;
    this.#max = max;
    this.#slack = Math.floor(max / 20);
  }

  async consume(key: string, points = 1): Promise<RateLimitDecision> {
    const now = Date.now();
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
    return decisionOf(res, this.#max, res.consumedPoints <= this.#max);
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
    const resetAt = Date.now() + Math.max(0, res.msBeforeNext);
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
    const now = Date.now();
    for (const [key, window] of this.#windows) {
      if (now >= window.resetAt && window.pending === 0 && window.sending === 0) this.#windows.delete(key);
    }
    for (const [key, window] of this.#windows) {
      if (this.#windows.size < MAX_WINDOWS) break;
      if (window.pending === 0 && window.sending === 0) this.#windows.delete(key);
    }
  }

  #scheduleFlush(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, FLUSH_INTERVAL_MS).unref();
  }

  #flush(): void {
    for (const [key, window] of this.#windows) {
      if (window.pending === 0) {
        if (Date.now() >= window.resetAt && window.sending === 0) this.#windows.delete(key);
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

/** Response bytes that cost one extra request of the rate limit (256 KiB). */
export const RESPONSE_COST_UNIT_BYTES = 256 * 1024;

/**
 * What a response costs beyond the request itself: one more request per full 256 KiB, so that a
 * caller reading its largest resources (4 MiB message histories) in a loop spends its window in
 * proportion to the work it causes; ordinary pages and lists cost nothing extra.
 */
export function extraCostOf(responseBytes: number): number {
  return Math.floor(responseBytes / RESPONSE_COST_UNIT_BYTES);
}

/**
 * Counts the request, sets the `RateLimit-*` headers, and throws 429 RATE_LIMITED (with
 * `Retry-After`) when the window is used up.
 */
export async function enforceRateLimit(
  limiter: RateLimiter,
  key: string,
  reply: FastifyReply,
): Promise<void> {
  const decision = await limiter.consume(key);
  const resetSeconds = Math.max(0, Math.ceil((decision.resetTime - Date.now()) / 1000));
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(resetSeconds));
  // draft-ietf-httpapi-ratelimit-headers-11: the policy, and the window's state under its name.
  reply.header('ratelimit-policy', `"default";q=${decision.limit};w=${Math.ceil(limiter.windowSeconds)}`);
  reply.header('ratelimit', `"default";r=${decision.remaining};t=${resetSeconds}`);
  if (!decision.allowed) {
    const { allowed: _allowed, ...details } = decision;
    throw new RateLimitedError(details, undefined, key.startsWith('ip:') ? 'address' : 'key');
  }
}
