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
  /** Resolves once the store accepts commands (rejects when Redis cannot be reached at start). */
  ready(): Promise<void>;
  consume(key: string): Promise<RateLimitDecision>;
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
}

/**
 * Builds the limiter. Memory only for embedded PGlite, which is one process by design; with a
 * PostgreSQL server several processes may run, so counters go to Redis or PostgreSQL.
 */
export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const base = { points: options.max, duration: options.windowMs / 1000, keyPrefix: 'rl' };
  if (options.redisUrl) {
    const redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const limiter = new RateLimiterRedis({ ...base, storeClient: redis, useRedisPackage: false });
    return wrap(
      'redis',
      limiter,
      options.max,
      async () => redis.disconnect(),
      () => redisReady(redis),
    );
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
    return wrap('postgres', limiter, options.max, async () => {});
  }
  return wrap('memory', new RateLimiterMemory(base), options.max, async () => {});
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

function wrap(
  store: RateLimiter['store'],
  limiter: RateLimiterAbstract,
  max: number,
  close: () => Promise<void>,
  ready: () => Promise<void> = async () => {},
): RateLimiter {
  return {
    store,
    close,
    ready,
    consume: async (key) => {
      try {
        return decisionOf(await limiter.consume(key), max, true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decisionOf(err, max, false);
        throw new ServiceUnavailableError(undefined, { cause: err });
      }
    },
  };
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
  if (!decision.allowed) {
    const { allowed: _allowed, ...details } = decision;
    throw new RateLimitedError(details);
  }
}
