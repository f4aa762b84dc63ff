import { bigint, integer, pgTable, primaryKey, text, varchar } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

/** Server-wide secrets and flags shared by every process (e.g. the cursor HMAC key). */
export const serverSettings = pgTable('server_settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/**
 * Exact collection sizes maintained in the same transaction as the rows they count, so that
 * `totalCount` is one primary-key read instead of COUNT(*) over a million rows.
 */
export const tenantCounters = pgTable(
  'tenant_counters',
  {
    tenantId: text('tenant_id').notNull(),
    scope: text('scope').notNull(),
    count: bigint('count', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.scope] })],
);

/**
 * Fixed-window rate-limit counters of rate-limiter-flexible's PostgreSQL store (its own table
 * layout; created here so that concurrent processes never race to create it).
 */
export const rateLimits = pgTable('rate_limits', {
  key: varchar('key', { length: 255 }).primaryKey(),
  points: integer('points').notNull().default(0),
  expire: bigint('expire', { mode: 'number' }),
});
