import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { type Database, openDatabase } from '../db/database.js';
import { newId } from '../lib/ids.js';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';
import { createApiKey, ensureTenant, listApiKeys, revokeApiKey } from './tenants.service.js';

// The clock of both apps: a test steps it instead of waiting for the cache to expire.
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const TTL_S = 30;

// Two apps on one database stand for two server processes: each has its own key cache. On
// PostgreSQL the second has its own pool too.
const t = useTestApp({ clock, env: { AUTH_CACHE_TTL_S: String(TTL_S) } });
let second: { app: FastifyInstance; database: Database | undefined };

beforeAll(async () => {
  const database = t.config.databaseUrl
    ? await openDatabase({ databaseUrl: t.config.databaseUrl })
    : undefined;
  second = { app: await buildApp({ config: t.config, database: database ?? t.database, clock }), database };
});

afterAll(async () => {
  await second?.app.close();
  await second?.database?.close();
});

const get = (app: FastifyInstance, apiKey: string) =>
  app.inject({ method: 'GET', url: '/v0/pages?limit=1', headers: { 'x-api-key': apiKey } });

const statuses = async (apiKey: string) =>
  Promise.all([get(t.app, apiKey), get(second.app, apiKey)]).then((rs) => rs.map((r) => r.statusCode));

const deps = () => ({ db: t.database.db, clock, ids: newId });
let named = 0;

/** A tenant with a known name and one read key (the seeder's tenants are nameless). */
async function namedTenant(expiresAt: Date | null = null): Promise<{ name: string; apiKey: string }> {
  const name = `keys-${process.pid}-${named++}`;
  const { tenantId } = await ensureTenant(deps(), name);
  const { apiKey } = await createApiKey(deps(), { tenantId, scopes: ['read'], expiresAt });
  return { name, apiKey };
}

describe('key revocation and expiry across processes', () => {
  it('a revoked key is refused by every process once AUTH_CACHE_TTL_S has passed, not before', async () => {
    offsetMs = 0;
    const tenant = await namedTenant();
    const before = clock().getTime();
    expect(await statuses(tenant.apiKey)).toEqual([200, 200]);
    const cachedUntil = clock().getTime() + TTL_S * 1000;
    const [key] = (await listApiKeys(t.database.db, tenant.name)) ?? [];
    expect(await revokeApiKey(deps(), key?.keyId ?? '')).toMatchObject({ revokedAt: expect.any(String) });
    // Both processes still trust their cached lookup inside the window...
    offsetMs = before + (TTL_S - 1) * 1000 - Date.now();
    expect(await statuses(tenant.apiKey)).toEqual([200, 200]);
    // ...and refuse the key once it has passed.
    offsetMs = cachedUntil - Date.now();
    expectApiError(await get(t.app, tenant.apiKey), 'UNAUTHORIZED');
    expectApiError(await get(second.app, tenant.apiKey), 'UNAUTHORIZED');
  });

  it('an expiring key is refused from its expiry on, even inside the cache window', async () => {
    offsetMs = 0;
    const expiresAt = new Date(clock().getTime() + 5_000);
    const { apiKey } = await namedTenant(expiresAt);
    expect(await statuses(apiKey)).toEqual([200, 200]);
    offsetMs = expiresAt.getTime() - Date.now();
    expect(await statuses(apiKey)).toEqual([401, 401]);
  });

  it('a use is recorded (last used, prefix) without ever listing the key', async () => {
    offsetMs = 0;
    const tenant = await namedTenant();
    const [unused] = (await listApiKeys(t.database.db, tenant.name)) ?? [];
    expect(unused?.lastUsedAt).toBeNull();
    expect(await statuses(tenant.apiKey)).toEqual([200, 200]);
    const keys = (await listApiKeys(t.database.db, tenant.name)) ?? [];
    expect(keys).toEqual([
      expect.objectContaining({ prefix: tenant.apiKey.slice(0, 12), lastUsedAt: expect.any(String) }),
    ]);
    expect(JSON.stringify(keys)).not.toContain(tenant.apiKey.slice(12, 24));
  });
});
