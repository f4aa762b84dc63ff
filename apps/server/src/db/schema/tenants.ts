import { boolean, index, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

/** Tenants: every resource belongs to exactly one. */
export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique('tenants_name_key'),
  createdAt: ts('created_at').notNull(),
});

/** API keys, stored only as SHA-256 hashes of the secret. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_key'),
    scopes: text('scopes').array().notNull(),
    multiTenant: boolean('multi_tenant').notNull().default(false),
    createdAt: ts('created_at').notNull(),
    revokedAt: ts('revoked_at'),
    /** The secret's first characters (`cak_` and 8 more), shown by `keys list`; null until first use for older keys. */
    prefix: text('prefix'),
    /** Past this instant the key is refused; null: never expires. */
    expiresAt: ts('expires_at'),
    /** Last time a process looked the key up (at most once per `AUTH_CACHE_TTL_S` per process). */
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('api_keys_tenant_idx').on(t.tenantId)],
);
