import { PGlite } from '@electric-sql/pglite';
import { desc } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysetAfter } from './pagination.js';

// keysetAfter's condition on a real (embedded) PostgreSQL: the rows after a position in
// newest-first `(created_at, id)` order, ties on the timestamp broken by the id.

const items = pgTable('items', {
  id: text('id').primaryKey(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
});

const ROWS = [
  { id: 'item_e', createdAt: new Date('2026-01-05T00:00:00.000Z') },
  { id: 'item_d', createdAt: new Date('2026-01-04T00:00:00.000Z') },
  { id: 'item_c', createdAt: new Date('2026-01-04T00:00:00.000Z') },
  { id: 'item_b', createdAt: new Date('2026-01-02T00:00:00.123Z') },
  { id: 'item_a', createdAt: new Date('2026-01-01T00:00:00.000Z') },
];

let client: PGlite;
let db: ReturnType<typeof drizzle>;
beforeAll(async () => {
  client = new PGlite();
  db = drizzle({ client });
  await client.exec('CREATE TABLE items (id text PRIMARY KEY, created_at timestamptz NOT NULL)');
  await db.insert(items).values(ROWS);
});
afterAll(async () => {
  await client.close();
});

const after = async (position: { createdAt: Date; id: string }) =>
  (
    await db
      .select({ id: items.id })
      .from(items)
      .where(keysetAfter(items.createdAt, items.id, position))
      .orderBy(desc(items.createdAt), desc(items.id))
  ).map((row) => row.id);

describe('keysetAfter', () => {
  it('selects the rows after a position, a tie on the time broken by the id', async () => {
    expect(await after(ROWS[1] as (typeof ROWS)[number])).toEqual(['item_c', 'item_b', 'item_a']);
    expect(await after(ROWS[2] as (typeof ROWS)[number])).toEqual(['item_b', 'item_a']);
  });

  it('compares times to the millisecond, and selects nothing after the oldest row', async () => {
    expect(await after({ createdAt: new Date('2026-01-02T00:00:00.124Z'), id: 'item_0' })).toEqual([
      'item_b',
      'item_a',
    ]);
    expect(await after(ROWS[3] as (typeof ROWS)[number])).toEqual(['item_a']);
    expect(await after(ROWS[4] as (typeof ROWS)[number])).toEqual([]);
  });
});
