import { isUniqueViolation } from '../db/errors.js';
import type { Handle } from '../db/port.js';
import { apiKeys, tenants } from '../db/schema/index.js';
import {
  bool,
  columns,
  insertValues,
  nullable,
  rowOf,
  sql,
  statement,
  text,
  textArray,
  timestamptz,
} from '../db/sql.js';

/** A stored tenant. */
export type TenantRow = typeof tenants.$inferSelect;
/** A stored API key (hash only). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;

const TENANT = columns(tenants);
const API_KEY = columns(apiKeys);

const tenantByName = statement({
  name: 'tenant_by_name',
  params: { name: text },
  sql: (p) => sql`SELECT ${TENANT} FROM tenants WHERE name = ${p.name}`,
  row: rowOf<TenantRow>(),
});

/** Finds a tenant by its unique name. */
export function findTenantByName(db: Handle, name: string): Promise<TenantRow | undefined> {
  return db.first(tenantByName, { name });
}

const tenantInsert = statement({
  name: 'tenant_insert',
  params: { id: text, name: text, createdAt: timestamptz },
  sql: (p) => sql`INSERT INTO tenants ${insertValues(tenants, p)} ON CONFLICT DO NOTHING RETURNING ${TENANT}`,
  row: rowOf<TenantRow>(),
});

/** Inserts a tenant unless the name exists; returns the stored tenant either way. */
export async function insertTenantOrGet(
  db: Handle,
  row: TenantRow,
): Promise<{ tenant: TenantRow; created: boolean }> {
  try {
    const inserted = await db.first(tenantInsert, row);
    if (inserted) return { tenant: inserted, created: true };
  } catch (err) {
    if (!isUniqueViolation(err, 'tenants_name_key')) throw err;
  }
  const existing = await findTenantByName(db, row.name);
  if (!existing) throw new Error(`Tenant ${row.name} vanished while being created`);
  return { tenant: existing, created: false };
}

const apiKeyInsert = statement({
  name: 'api_key_insert',
  params: {
    id: text,
    tenantId: text,
    keyHash: text,
    scopes: textArray,
    multiTenant: bool,
    createdAt: timestamptz,
    revokedAt: nullable(timestamptz),
    prefix: nullable(text),
    expiresAt: nullable(timestamptz),
    lastUsedAt: nullable(timestamptz),
  },
  sql: (p) => sql`INSERT INTO api_keys ${insertValues(apiKeys, p)}`,
});

/** Stores an API key. */
export async function insertApiKey(db: Handle, row: ApiKeyRow): Promise<void> {
  await db.run(apiKeyInsert, row);
}

// Every cache miss of the key resolver runs this one statement: lookup and use in one round trip.
const touchLiveByHash = statement({
  name: 'api_key_touch_live_by_hash',
  params: { keyHash: text, now: timestamptz, prefix: text },
  sql: (p) => sql`UPDATE api_keys SET last_used_at = ${p.now}, prefix = coalesce(prefix, ${p.prefix})
    WHERE key_hash = ${p.keyHash} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${p.now})
    RETURNING ${API_KEY}`,
  row: rowOf<ApiKeyRow>(),
});

/**
 * Finds a live key (not revoked, not expired at `now`) by the hash of its secret and records the
 * use: `last_used_at`, and the prefix of a key created before prefixes were stored.
 */
export function touchLiveKeyByHash(
  db: Handle,
  keyHash: string,
  use: { now: Date; prefix: string },
): Promise<ApiKeyRow | undefined> {
  return db.first(touchLiveByHash, { keyHash, now: use.now, prefix: use.prefix });
}

const liveByHash = statement({
  name: 'api_key_live_by_hash',
  params: { keyHash: text, now: timestamptz },
  sql: (p) => sql`SELECT ${API_KEY} FROM api_keys
    WHERE key_hash = ${p.keyHash} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${p.now})`,
  row: rowOf<ApiKeyRow>(),
});

/**
 * Finds a live key by the hash of its secret without recording the use: the lookup when the
 * recording write cannot run (on a Citus cluster a write to `api_keys`, a reference table, needs
 * every node, a read only one).
 */
export function findLiveKeyByHash(db: Handle, keyHash: string, now: Date): Promise<ApiKeyRow | undefined> {
  return db.first(liveByHash, { keyHash, now });
}

const keysOfTenant = statement({
  name: 'api_keys_of_tenant',
  params: { tenantId: text },
  sql: (p) =>
    sql`SELECT ${API_KEY} FROM api_keys WHERE tenant_id = ${p.tenantId} ORDER BY created_at ASC, id ASC`,
  row: rowOf<ApiKeyRow>(),
});

/** Every key of a tenant, oldest first. */
export function listKeys(db: Handle, tenantId: string): Promise<ApiKeyRow[]> {
  return db.all(keysOfTenant, { tenantId });
}

const revoke = statement({
  name: 'api_key_revoke',
  params: { keyId: text, now: timestamptz },
  sql: (p) => sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${p.now}::timestamptz)
    WHERE id = ${p.keyId} RETURNING ${API_KEY}`,
  row: rowOf<ApiKeyRow>(),
});

/** Marks a key revoked at `now` (a revoked key keeps its first revocation time); undefined when unknown. */
export function revokeKey(db: Handle, keyId: string, now: Date): Promise<ApiKeyRow | undefined> {
  return db.first(revoke, { keyId, now });
}
