import type { Db } from '../db/port.js';
import { type Clock, systemClock } from '../lib/clock.js';
import {
  type AuthContext,
  authenticateHash,
  hashApiKey,
  KEY_PREFIX_LENGTH,
  type KeyUse,
} from './tenants.service.js';

/** Options of {@link createKeyResolver}. */
export interface KeyResolverOptions {
  /** How long a known key stays cached (revocation takes effect within this time). */
  ttlMs?: number;
  /** How long an unknown key is remembered as unknown (a key created meanwhile waits this long). */
  negativeTtlMs?: number;
  /** Most entries kept; the oldest are dropped first. */
  maxEntries?: number;
  /** The time source (tests step it past the TTL). */
  clock?: Clock;
}

/** Resolves a presented secret to its caller; `peek` answers from the cache alone (`null`: not cached). */
export interface KeyResolver {
  (secret: string, hooks?: Pick<KeyUse, 'onTouchFailed'>): Promise<AuthContext | undefined>;
  peek(secret: string): AuthContext | undefined | null;
}

/**
 * Resolves presented API keys with a small in-process cache, so that a busy key costs one
 * database lookup per TTL instead of one per request, and a flood of garbage keys cannot turn
 * into a flood of queries. Entries are keyed by the secret's SHA-256, never by the secret.
 */
export function createKeyResolver(db: Db, options: KeyResolverOptions = {}): KeyResolver {
  const ttlMs = options.ttlMs ?? 30_000;
  const negativeTtlMs = options.negativeTtlMs ?? Math.min(5_000, ttlMs);
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? systemClock;
  const cache = new Map<string, { value: AuthContext | undefined; expires: number }>();
  const cached = (hash: string, now: number): AuthContext | undefined | null => {
    const hit = cache.get(hash);
    return hit && hit.expires > now ? hit.value : null;
  };
  const plausible = (secret: string) => secret.length > 0 && secret.length <= 256;
  const peek = (secret: string) =>
    plausible(secret) ? cached(hashApiKey(secret), clock().getTime()) : undefined;
  const resolve = async (
    secret: string,
    hooks: Pick<KeyUse, 'onTouchFailed'> = {},
  ): Promise<AuthContext | undefined> => {
    if (!plausible(secret)) return undefined;
    const hash = hashApiKey(secret);
    const at = clock();
    const now = at.getTime();
    const hit = cached(hash, now);
    if (hit !== null) return hit;
    const value = await authenticateHash(db, hash, {
      now: at,
      prefix: secret.slice(0, KEY_PREFIX_LENGTH),
      ...hooks,
    });
    cache.delete(hash);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    // An expiring key leaves the cache when it expires, whatever the TTL.
    const expires = value
      ? Math.min(now + ttlMs, value.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY)
      : now + negativeTtlMs;
    cache.set(hash, { value, expires });
    return value;
  };
  return Object.assign(resolve, { peek });
}
