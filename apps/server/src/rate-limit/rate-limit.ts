import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis } from 'rate-limiter-flexible';
import { type Clock, systemClock } from '../lib/clock.js';
import { RateLimitedError } from '../lib/errors.js';
import { BatchingLimiter } from './batching.js';
import { MAX_WINDOWS, type RateLimitDecision } from './decision.js';
import { MemoryWindows } from './memory.js';

export type { RateLimitDecision } from './decision.js';

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
  /** Gives one point back to `key`'s current window (a request that does not count: a 304). */
  refund(key: string): Promise<void>;
  /**
   * True while this process knows `key`'s window is used up (it answered it 429 and the window
   * has not ended): a caller may refuse work before spending anything on the request.
   */
  exhausted(key: string): boolean;
  /** The limiter's clock (epoch ms), against which `resetTime` is given; `Date.now` when absent. */
  now?(): number;
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
  /**
   * The limiter's clock; defaults to the system clock. The memory store's windows and every
   * answer's reset time follow it; Redis and PostgreSQL end their windows on the system clock.
   */
  clock?: Clock;
}

/** Least time between two "Redis lost" reports of one outage. */
const REDIS_REPORT_MS = 30_000;
/** How long a Redis command may take before the limiter counts in process instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Builds the limiter. Memory only for embedded PGlite, which is one process by design; with a
 * PostgreSQL server several processes may run, so counters go to Redis or PostgreSQL.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const clock = options.clock ?? systemClock;
  const now = () => clock().getTime();
  return rememberExhausted({
    ...createStoreLimiter(options, now),
    windowSeconds: options.windowMs / 1000,
    now,
  });
}

type StoreLimiter = Omit<RateLimiter, 'exhausted' | 'windowSeconds' | 'now'>;

function createStoreLimiter(options: RateLimitOptions, now: () => number): StoreLimiter {
  const base = { points: options.max, duration: options.windowMs / 1000, keyPrefix: 'rl' };
  if (options.redisUrl) {
    // A silent link (packets dropped, nothing closed) fails a command after 500 ms, so the limit
    // falls back to the process's own count instead of holding the request.
    const redis = new Redis(options.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    });
    watchRedis(redis, options.onRedisState, now);
    // While Redis is unreachable each process counts on its own (decided: a degraded limit, not
    // 503 on every request); the shared counts resume when it is back.
    const limiter = new RateLimiterRedis({
      ...base,
      storeClient: redis,
      useRedisPackage: false,
      insuranceLimiter: new RateLimiterMemory(base),
    });
    return {
      ...batched('redis', new BatchingLimiter(limiter, options.max, now), {
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
    return batched('postgres', new BatchingLimiter(limiter, options.max, now), {
      ready: async () => {},
      close: async () => {},
    });
  }
  const windows = new MemoryWindows(options.max, options.windowMs, now);
  return {
    store: 'memory',
    ready: async () => {},
    consume: async (key, points) => windows.consume(key, points),
    refund: async (key) => windows.refund(key),
    close: async () => {},
  };
}

/** Reports a lost connection (once per {@link REDIS_REPORT_MS}) and its return. */
function watchRedis(redis: Redis, report: RateLimitOptions['onRedisState'], now: () => number): void {
  let connected = false;
  let reportedAt = 0;
  redis.on('error', (err: Error) => {
    if (now() - reportedAt < REDIS_REPORT_MS) return;
    reportedAt = now();
    report?.('lost', err);
  });
  redis.on('close', () => {
    if (connected && now() - reportedAt >= REDIS_REPORT_MS) {
      reportedAt = now();
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

/**
 * Answers a key whose window is known to be used up from memory until the window ends: a window
 * only fills up, so the answer cannot change, and a caller flooding past its limit (or garbage
 * keys from one address) then costs no round trip to Redis or PostgreSQL. Bounded like the
 * batching windows; an evicted key simply asks the store again.
 */
function rememberExhausted(limiter: Omit<RateLimiter, 'exhausted'> & { now(): number }): RateLimiter {
  const refused = new Map<string, RateLimitDecision>();
  const current = (key: string): RateLimitDecision | undefined => {
    const decision = refused.get(key);
    if (!decision) return undefined;
    const msLeft = decision.resetTime - limiter.now();
    if (msLeft > 0) return { ...decision, retryAfter: Math.max(1, Math.ceil(msLeft / 1000)) };
    refused.delete(key);
    return undefined;
  };
  return {
    ...limiter,
    exhausted: (key) => current(key) !== undefined,
    refund: async (key) => {
      refused.delete(key);
      await limiter.refund(key);
    },
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

/** A shared store behind a {@link BatchingLimiter}; `close` runs after the last counts are sent. */
function batched(
  store: RateLimiter['store'],
  batching: BatchingLimiter,
  lifecycle: Pick<RateLimiter, 'ready' | 'close'>,
): StoreLimiter {
  return {
    store,
    ready: lifecycle.ready,
    consume: (key, points) => batching.consume(key, points),
    refund: (key) => batching.refund(key),
    close: async () => {
      await batching.close();
      await lifecycle.close();
    },
  };
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
  const now = limiter.now?.() ?? Date.now();
  const resetSeconds = Math.max(0, Math.ceil((decision.resetTime - now) / 1000));
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-reset', String(resetSeconds));
  // draft-ietf-httpapi-ratelimit-headers-11: the policy, and the window's state under its name.
  reply.header('ratelimit-policy', `"default";q=${decision.limit};w=${Math.ceil(limiter.windowSeconds)}`);
  showRemaining(reply, decision.remaining, resetSeconds);
  if (!decision.allowed) {
    const { allowed: _allowed, ...details } = decision;
    throw new RateLimitedError(details, undefined, key.startsWith('ip:') ? 'address' : 'key');
  }
}

/** The window's remaining requests, in today's header and in draft 11's `RateLimit`. */
function showRemaining(reply: FastifyReply, remaining: number, resetSeconds: number | string): void {
  reply.header('ratelimit-remaining', String(remaining));
  reply.header('ratelimit', `"default";r=${remaining};t=${resetSeconds}`);
}

/** The `RateLimit` headers {@link enforceRateLimit} set, as if their request had not been counted (a 304). */
export function showNotCounted(reply: FastifyReply): void {
  const limit = Number(reply.getHeader('ratelimit-limit'));
  const remaining = Number(reply.getHeader('ratelimit-remaining'));
  if (!Number.isFinite(limit) || !Number.isFinite(remaining)) return;
  showRemaining(reply, Math.min(limit, remaining + 1), String(reply.getHeader('ratelimit-reset') ?? 0));
}
