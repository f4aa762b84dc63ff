import { createHash } from 'node:crypto';

/** How long the scopes of a key are kept (a changed key is seen within this time). */
export const KEY_SCOPES_TTL_MS = 60_000;
/** Keys whose scopes are kept at once; the oldest answer goes first. */
const MAX_KEYS = 1_000;

/** Options of {@link createScopeLookup}. */
export interface ScopeLookupOptions {
  /** Root of the Customer API. */
  baseUrl: string;
  ttlMs?: number;
  /** Milliseconds now (tests move it). */
  now?: () => number;
}

/** The scopes of an API key, or undefined when the API does not say (old server, bad key, outage). */
export type ScopeLookup = (apiKey: string) => Promise<ReadonlySet<string> | undefined>;

/**
 * Asks the API which scopes a key has: one cheap read whose `X-OAuth-Scopes` header answers,
 * once per key per {@link KEY_SCOPES_TTL_MS} (concurrent askers share the request). Keys are
 * kept only as SHA-256 digests. An unanswered question is not kept: the next call asks again.
 */
export function createScopeLookup(options: ScopeLookupOptions): ScopeLookup {
  const ttlMs = options.ttlMs ?? KEY_SCOPES_TTL_MS;
  const now = options.now ?? Date.now;
  const url = new URL(
    'v0/pages?limit=1',
    options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
  );
  const kept = new Map<string, { at: number; scopes: Promise<ReadonlySet<string> | undefined> }>();
  const ask = async (apiKey: string): Promise<ReadonlySet<string> | undefined> => {
    const response = await fetch(url, {
      headers: { 'x-api-key': apiKey, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (!response) return undefined;
    await response.body?.cancel();
    const header = response.headers.get('x-oauth-scopes');
    if (header === null) return undefined;
    return new Set(
      header
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    );
  };
  return (apiKey) => {
    const id = createHash('sha256').update(apiKey).digest('base64url');
    const entry = kept.get(id);
    if (entry && now() - entry.at < ttlMs) return entry.scopes;
    kept.delete(id);
    const scopes = ask(apiKey);
    kept.set(id, { at: now(), scopes });
    void scopes.then((answer) => {
      if (answer === undefined && kept.get(id)?.scopes === scopes) kept.delete(id);
    });
    if (kept.size > MAX_KEYS) kept.delete(kept.keys().next().value as string);
    return scopes;
  };
}

/** True unless the key's scopes are known and lack `write`. */
export async function mayWrite(lookup: ScopeLookup, apiKey: string): Promise<boolean> {
  const scopes = await lookup(apiKey);
  return scopes === undefined || scopes.has('write');
}
