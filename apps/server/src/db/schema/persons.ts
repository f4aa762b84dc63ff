import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantId, ts } from './columns.js';

/** Persons (contacts), each linked to the account of its email's canonical domain. */
export const persons = pgTable(
  'persons',
  {
    id: text('id').notNull(),
    tenantId: tenantId(),
    accountId: text('account_id').notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    domain: text('domain').notNull(),
    slug: text('slug').notNull(),
    phoneNumber: text('phone_number'),
    linkedinProfileUrl: text('linkedin_profile_url'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'persons_pkey', columns: [t.tenantId, t.id] }),
    // One person per email address and tenant, whatever the letter case.
    uniqueIndex('persons_tenant_email_key').on(t.tenantId, sql`lower(${t.email})`),
    // getAccount's linkedPersons, oldest first.
    index('persons_account_idx').on(t.tenantId, t.accountId, t.createdAt, t.id),
  ],
);
