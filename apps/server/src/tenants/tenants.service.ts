import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isDatabaseUnavailable, pgErrorOf } from '../db/errors.js';
import type { Handle } from '../db/port.js';
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
  /** When the key stops working; null: never. */
  expiresAt: Date | null;
}

/** Characters of a key shown by `keys list` (`cak_` and 8 of the secret): enough to tell keys apart. */
export const KEY_PREFIX_LENGTH = 12;

/** Dependencies of tenant and key operations. */
export interface TenantDeps {
  /** Any handle: the CLI's and tests' `Database.db`, or a caller's transaction. */
  db: Handle;
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
  input: { tenantId: string; scopes: readonly Scope[]; multiTenant?: boolean; expiresAt?: Date | null },
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
    prefix: apiKey.slice(0, KEY_PREFIX_LENGTH),
    expiresAt: input.expiresAt ?? null,
    lastUsedAt: null,
  });
  return { apiKey, keyId };
}

/**
 * Resolves a presented key live at `now` and records its use. The lookup is by hash (a secret
 * never reaches an index), and the stored hash is compared again in constant time.
 */
export async function authenticate(
  db: Handle,
  secret: string,
  now: Date = new Date(),
): Promise<AuthContext | undefined> {
  if (secret.length === 0 || secret.length > 256) return undefined;
  return authenticateHash(db, hashApiKey(secret), { now, prefix: secret.slice(0, KEY_PREFIX_LENGTH) });
}

/** How {@link authenticateHash} records a key's use. */
export interface KeyUse {
  now: Date;
  prefix: string;
  /**
   * Called when the use could not be recorded because the database refused the write as
   * unavailable, and the key was resolved by a read instead (the request goes on).
   */
  onTouchFailed?: (err: unknown) => void;
}

/**
 * Resolves the SHA-256 hex hash of a presented key (see {@link authenticate}). Recording the use
 * is best-effort: when the database answers that it cannot take the write (a Citus worker down
 * makes every write to the `api_keys` reference table fail, whichever tenant asks), the key is
 * looked up by a read, so tenants whose shards are reachable keep being served. A database that
 * cannot be reached at all gives no answer: that error goes on at once, with no second attempt.
 */
export async function authenticateHash(
  db: Handle,
  hash: string,
  use: KeyUse,
): Promise<AuthContext | undefined> {
  let row: repo.ApiKeyRow | undefined;
  try {
    row = await repo.touchLiveKeyByHash(db, hash, { now: use.now, prefix: use.prefix });
  } catch (err) {
    if (!isDatabaseUnavailable(err) || !pgErrorOf(err)) throw err;
    row = await repo.findLiveKeyByHash(db, hash, use.now);
    use.onTouchFailed?.(err);
  }
  if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(hash))) return undefined;
  return {
    tenantId: row.tenantId,
    keyId: row.id,
    scopes: row.scopes.filter((s): s is Scope => s === 'read' || s === 'write'),
    multiTenant: row.multiTenant,
    expiresAt: row.expiresAt,
  };
}

/** What `keys list` shows of a key: never the secret nor its hash. */
export interface KeySummary {
  keyId: string;
  prefix: string | null;
  scopes: string[];
  multiTenant: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

function summary(row: repo.ApiKeyRow): KeySummary {
  return {
    keyId: row.id,
    prefix: row.prefix,
    scopes: row.scopes,
    multiTenant: row.multiTenant,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** The keys of a tenant by name, oldest first; undefined when no tenant has that name. */
export async function listApiKeys(db: Handle, tenantName: string): Promise<KeySummary[] | undefined> {
  const tenant = await repo.findTenantByName(db, tenantName);
  return tenant ? (await repo.listKeys(db, tenant.id)).map(summary) : undefined;
}

/** Revokes a key (again: keeps the first time); undefined when no key has that id. */
export async function revokeApiKey(deps: TenantDeps, keyId: string): Promise<KeySummary | undefined> {
  const row = await repo.revokeKey(deps.db, keyId, deps.clock());
  return row ? summary(row) : undefined;
}
