import { describe, expect, it } from 'vitest';
import type { Db } from '../db/port.js';
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

  it('resolves a key by a read when the database refuses to record its use; other errors still fail', async () => {
    // What a Citus coordinator answers to a write to a reference table while a worker is down.
    const workerDown = Object.assign(
      new Error('connection to the remote node postgres@127.0.0.1:5482 failed with the following error'),
      { code: '08006' },
    );
    const failing = (err: Error): Db =>
      new Proxy(t.database.db, {
        get(target, property, receiver) {
          if (property !== 'first') return Reflect.get(target, property, receiver);
          return (statement: { name: string }, input: unknown) =>
            statement.name === 'api_key_touch_live_by_hash'
              ? Promise.reject(err)
              : target.first(statement as never, input as never);
        },
      });
    const failed: unknown[] = [];
    const resolve = createKeyResolver(failing(workerDown), { ttlMs: 0 });
    expect(await resolve(t.tenant.apiKey, { onTouchFailed: (err) => failed.push(err) })).toMatchObject({
      tenantId: t.tenant.tenantId,
      scopes: ['read', 'write'],
    });
    expect(failed).toEqual([workerDown]);
    expect(await resolve('cak_unknown')).toBeUndefined();
    const other = await t.seed.tenant();
    await revoke(other.apiKey);
    expect(await resolve(other.apiKey)).toBeUndefined();

    const broken = createKeyResolver(failing(Object.assign(new Error('syntax'), { code: '42601' })), {
      ttlMs: 0,
    });
    await expect(broken(t.tenant.apiKey)).rejects.toThrow('syntax');

    // A database that cannot be reached answers nothing: no read is tried after the failed write.
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    const refused = createKeyResolver(failing(unreachable), { ttlMs: 0 });
    const notified: unknown[] = [];
    await expect(refused(t.tenant.apiKey, { onTouchFailed: (err) => notified.push(err) })).rejects.toBe(
      unreachable,
    );
    expect(notified).toEqual([]);
  });
});
