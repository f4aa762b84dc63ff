import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { isUniqueViolation } from '../db/errors.js';
import { apiKeys, tenants } from '../db/schema/index.js';

/** A stored tenant. */
export type TenantRow = typeof tenants.$inferSelect;
/** A stored API key (hash only). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Finds a tenant by its unique name. */
export async function findTenantByName(db: Db, name: string): Promise<TenantRow | undefined> {
  const rows = await db.select().from(tenants).where(eq(tenants.name, name));
  return rows[0];
}

/** Inserts a tenant unless the name exists; returns the stored tenant either way. */
export async function insertTenantOrGet(
  db: Db,
  row: TenantRow,
): Promise<{ tenant: TenantRow; created: boolean }> {
  try {
    const inserted = await db.insert(tenants).values(row).onConflictDoNothing().returning();
    if (inserted[0]) return { tenant: inserted[0], created: true };
  } catch (err) {
    if (!isUniqueViolation(err, 'tenants_name_key')) throw err;
  }
  const existing = await findTenantByName(db, row.name);
  if (!existing) throw new Error(`Tenant ${row.name} vanished while being created`);
  return { tenant: existing, created: false };
}

/** Stores an API key. */
export async function insertApiKey(db: Db, row: ApiKeyRow): Promise<void> {
  await db.insert(apiKeys).values(row);
}

/**
 * Finds a live key (not revoked, not expired at `now`) by the hash of its secret and records the
 * use: `last_used_at`, and the prefix of a key created before prefixes were stored.
 */
export async function touchLiveKeyByHash(
  db: Db,
  keyHash: string,
  use: { now: Date; prefix: string },
): Promise<ApiKeyRow | undefined> {
  const rows = await db
    .update(apiKeys)
    .set({ lastUsedAt: use.now, prefix: sql`coalesce(${apiKeys.prefix}, ${use.prefix})` })
    .where(
      and(
        eq(apiKeys.keyHash, keyHash),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, use.now)),
      ),
    )
    .returning();
  return rows[0];
}

/** Every key of a tenant, oldest first. */
export async function listKeys(db: Db, tenantId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.tenantId, tenantId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Marks a key revoked at `now` (a revoked key keeps its first revocation time); undefined when unknown. */
export async function revokeKey(db: Db, keyId: string, now: Date): Promise<ApiKeyRow | undefined> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now.toISOString()}::timestamptz)` })
    .where(eq(apiKeys.id, keyId))
    .returning();
  return rows[0];
}
