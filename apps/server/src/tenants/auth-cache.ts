import type { Db } from '../db/client.js';
import { type AuthContext, authenticateHash, hashApiKey } from './tenants.service.js';

/** Options of {@link createKeyResolver}. */
export interface KeyResolverOptions {
  /** How long a known key stays cached (revocation takes effect within this time). */
  ttlMs?: number;
  /** How long an unknown key is remembered as unknown (a key created meanwhile waits this long). */
  negativeTtlMs?: number;
  /** Most entries kept; the oldest are dropped first. */
  maxEntries?: number;
}

/** Resolves a presented secret to its caller; `peek` answers from the cache alone (`null`: not cached). */
export interface KeyResolver {
  (secret: string): Promise<AuthContext | undefined>;
  peek(secret: string): AuthContext | undefined | null;
}

/**
 * Resolves presented API keys with a small in-process cache, so that a busy key costs one
 * database lookup per TTL instead of one per request, and a flood of garbage keys cannot turn
 * into a flood of queries. Entries are keyed by the secret's SHA-256, never by the secret.
 */
export function createKeyResolver(db: Db, options: KeyResolverOptions = {}): KeyResolver {
  const ttlMs = options.ttlMs ?? 30_000;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { value: AuthContext | undefined; expires: number }>();
  const cached = (hash: string, now: number): AuthContext | undefined | null => {
    const hit = cache.get(hash);
    return hit && hit.expires > now ? hit.value : null;
  };
  const plausible = (secret: string) => secret.length > 0 && secret.length <= 256;
  const peek = (secret: string) => (plausible(secret) ? cached(hashApiKey(secret), Date.now()) : undefined);
  const resolve = async (secret: string): Promise<AuthContext | undefined> => {
    if (!plausible(secret)) return undefined;
    const hash = hashApiKey(secret);
    const now = Date.now();
    const hit = cached(hash, now);
    if (hit !== null) return hit;
    const value = await authenticateHash(db, hash);
    cache.delete(hash);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(hash, { value, expires: now + (value ? ttlMs : negativeTtlMs) });
    return value;
  };
  return Object.assign(resolve, { peek });
}
