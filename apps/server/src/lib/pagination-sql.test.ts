import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteDatabase } from '../db/adapters/pglite.js';
import { rowOf, sql, statement, text, timestamptz } from '../db/sql.js';
import { keysetAfter } from './pagination.js';

// keysetAfter's condition on a real (embedded) PostgreSQL: the rows after a position in
// newest-first `(created_at, id)` order, ties on the timestamp broken by the id.

const ROWS = [
  { id: 'item_e', createdAt: new Date('2026-01-05T00:00:00.000Z') },
  { id: 'item_d', createdAt: new Date('2026-01-04T00:00:00.000Z') },
  { id: 'item_c', createdAt: new Date('2026-01-04T00:00:00.000Z') },
  { id: 'item_b', createdAt: new Date('2026-01-02T00:00:00.123Z') },
  { id: 'item_a', createdAt: new Date('2026-01-01T00:00:00.000Z') },
];

const createItems = statement({
  name: '',
  sql: () => sql`CREATE TABLE items (id text PRIMARY KEY, created_at timestamptz NOT NULL)`,
});
const insertItem = statement({
  name: '',
  params: { id: text, createdAt: timestamptz },
  sql: (p) => sql`INSERT INTO items (id, created_at) VALUES (${p.id}, ${p.createdAt})`,
});
const itemsAfter = statement({
  name: '',
  params: { createdAt: timestamptz, id: text },
  sql: (p) => sql`SELECT id FROM items WHERE ${keysetAfter(p)} ORDER BY created_at DESC, id DESC`,
  row: rowOf<{ id: string }>(),
});

// A self-join: the columns exist on both sides, so only the alias names the side compared.
const pairsAfter = statement({
  name: '',
  params: { createdAt: timestamptz, id: text },
  sql: (p) => sql`SELECT n.id FROM items o JOIN items n ON n.id > o.id AND o.id = 'item_a'
    WHERE ${keysetAfter(p, { alias: 'n' })} ORDER BY n.created_at DESC, n.id DESC`,
  row: rowOf<{ id: string }>(),
});

let database: PgliteDatabase;
beforeAll(async () => {
  database = await PgliteDatabase.open({});
  await database.db.run(createItems, {});
  for (const row of ROWS) await database.db.run(insertItem, row);
});
afterAll(async () => {
  await database.close();
});

const after = async (position: { createdAt: Date; id: string }) =>
  (await database.db.all(itemsAfter, position)).map((row) => row.id);

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

  it('compares the aliased table’s columns in a statement that joins others with the same names', async () => {
    const rows = await database.db.all(pairsAfter, ROWS[1] as (typeof ROWS)[number]);
    expect(rows.map((row) => row.id)).toEqual(['item_c', 'item_b']);
  });
});
