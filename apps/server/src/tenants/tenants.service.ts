import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import * as repo from './tenants.repo.js';

/** Scopes a key can carry. */
export type Scope = 'read' | 'write';

/** The caller behind an authenticated request. */
export interface AuthContext {
  tenantId: string;
  keyId: string;
  scopes: readonly Scope[];
  multiTenant: boolean;
}

/** Dependencies of tenant and key operations. */
export interface TenantDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
}

/** SHA-256 of a key secret, hex: the only form in which keys are stored. */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Returns the tenant with this name, creating it when new. */
export async function ensureTenant(
  deps: TenantDeps,
  name: string,
): Promise<{ tenantId: string; created: boolean }> {
  const { tenant, created } = await repo.insertTenantOrGet(deps.db, {
    id: deps.ids('tenant'),
    name,
    createdAt: deps.clock(),
  });
  return { tenantId: tenant.id, created };
}

/** Creates a key for a tenant; the secret is returned once and stored only as its hash. */
export async function createApiKey(
  deps: TenantDeps,
  input: { tenantId: string; scopes: readonly Scope[]; multiTenant?: boolean },
): Promise<{ apiKey: string; keyId: string }> {
  const apiKey = `cak_${randomBytes(32).toString('base64url')}`;
  const keyId = deps.ids('key');
  await repo.insertApiKey(deps.db, {
    id: keyId,
    tenantId: input.tenantId,
    keyHash: hashApiKey(apiKey),
    scopes: [...new Set(input.scopes)],
    multiTenant: input.multiTenant ?? false,
    createdAt: deps.clock(),
    revokedAt: null,
  });
  return { apiKey, keyId };
}

/**
 * Resolves a presented key. The lookup is by hash (a secret never reaches an index), and the
 * stored hash is compared again in constant time.
 */
export async function authenticate(db: Db, secret: string): Promise<AuthContext | undefined> {
  if (secret.length === 0 || secret.length > 256) return undefined;
  return authenticateHash(db, hashApiKey(secret));
}

/** Resolves the SHA-256 hex hash of a presented key (see {@link authenticate}). */
export async function authenticateHash(db: Db, hash: string): Promise<AuthContext | undefined> {
  const row = await repo.findLiveKeyByHash(db, hash);
  if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(hash))) return undefined;
  return {
    tenantId: row.tenantId,
    keyId: row.id,
    scopes: row.scopes.filter((s): s is Scope => s === 'read' || s === 'write'),
    multiTenant: row.multiTenant,
  };
}
