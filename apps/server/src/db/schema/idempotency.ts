import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/**
 * The first response of each `Idempotency-Key` of a tenant, written in the same transaction as
 * the change it answers, so a key is stored exactly when its change committed. `body` is the
 * exact text sent; `fingerprint` hashes method, path and body to tell a retry from a reuse.
 * Expired rows are ignored by reads and swept by the writes of their tenant through
 * `idempotency_keys_expires_idx` (one index range per tenant).
 * A response carrying a signing secret is kept with the secret sealed in its place: `sealed_secret`
 * is that sealed value, which a replay opens and puts back (`secrets/kept-responses.ts`).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: tenantId(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    statusCode: integer('status_code').notNull(),
    body: text('body').notNull(),
    sealedSecret: text('sealed_secret'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.key] }),
    index('idempotency_keys_expires_idx').on(t.tenantId, t.expiresAt),
  ],
);
