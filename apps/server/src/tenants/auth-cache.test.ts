import { describe, expect, it } from 'vitest';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { createKeyResolver } from './auth-cache.js';
import { hashApiKey } from './tenants.service.js';

const t = useTestApp();

const revoke = (apiKey: string) =>
  query(t.database.db, 'UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2', [
    new Date().toISOString(),
    hashApiKey(apiKey),
  ]);

describe('API key resolver', () => {
  it('resolves a key to its tenant and scopes; unknown, empty and oversized keys to nothing', async () => {
    const resolve = createKeyResolver(t.database.db);
    expect(await resolve(t.tenant.apiKey)).toMatchObject({
      tenantId: t.tenant.tenantId,
      scopes: ['read', 'write'],
      multiTenant: false,
    });
    expect(await resolve('cak_unknown')).toBeUndefined();
    expect(await resolve('')).toBeUndefined();
    expect(await resolve('x'.repeat(300))).toBeUndefined();
  });

  it('keeps a resolved key for its TTL; a revocation shows once the entry expires', async () => {
    const cached = createKeyResolver(t.database.db, { ttlMs: 60_000 });
    const uncached = createKeyResolver(t.database.db, { ttlMs: 0 });
    expect(await cached(t.tenant.apiKey)).toBeDefined();
    expect(await uncached(t.tenant.apiKey)).toBeDefined();
    await revoke(t.tenant.apiKey);
    expect(await cached(t.tenant.apiKey)).toBeDefined();
    expect(await uncached(t.tenant.apiKey)).toBeUndefined();
  });

  it('drops the oldest entries beyond its size', async () => {
    const resolve = createKeyResolver(t.database.db, { ttlMs: 60_000, maxEntries: 1 });
    const other = await t.seed.tenant();
    expect(await resolve(t.tenant.apiKey)).toBeDefined();
    expect(await resolve(other.apiKey)).toBeDefined();
    await revoke(t.tenant.apiKey);
    // The first key was evicted by the second, so the revocation is seen at once.
    expect(await resolve(t.tenant.apiKey)).toBeUndefined();
  });
});
