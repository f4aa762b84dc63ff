import { text, timestamp } from 'drizzle-orm/pg-core';

/** A millisecond-precision `timestamptz` read as a Date (JavaScript dates hold milliseconds). */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** The tenant column every tenant-owned table carries. */
export const tenantId = () => text('tenant_id').notNull();
