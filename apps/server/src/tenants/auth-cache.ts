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

/**
 * Resolves presented API keys with a small in-process cache, so that a busy key costs one
 * database lookup per TTL instead of one per request, and a flood of garbage keys cannot turn
 * into a flood of queries. Entries are keyed by the secret's SHA-256, never by the secret.
 */
export function createKeyResolver(db: Db, options: KeyResolverOptions = {}) {
  const ttlMs = options.ttlMs ?? 30_000;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const cache = new Map<string, { value: AuthContext | undefined; expires: number }>();
  return async (secret: string): Promise<AuthContext | undefined> => {
    if (secret.length === 0 || secret.length > 256) return undefined;
    const hash = hashApiKey(secret);
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return hit.value;
    const value = await authenticateHash(db, hash);
    cache.delete(hash);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(hash, { value, expires: now + (value ? ttlMs : negativeTtlMs) });
    return value;
  };
}
