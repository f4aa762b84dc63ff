import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { parseTimestamptz, rowQuery, selectList } from './fast.js';
import { pages } from './schema/index.js';

const t = useTestApp();

describe('fixed statements on the database client', () => {
  it('run inside the transaction of a transaction handle: they see its writes, and roll back with it', async () => {
    const page = await t.seed.page(t.tenant);
    const read = async (db: typeof t.database.db) => {
      const [row] = await rowQuery(db)<{ name: string }>(
        'test_page_name',
        'SELECT name FROM pages WHERE id = $1',
        [page.pageId],
      );
      return row?.name;
    };
    await t.database.db
      .transaction(async (tx) => {
        await tx.update(pages).set({ name: 'renamed' }).where(eq(pages.id, page.pageId));
        expect(await read(tx)).toBe('renamed');
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await read(t.database.db)).toBe(page.name);
  });

  it('return rows in the shape drizzle returns them', async () => {
    const page = await t.seed.page(t.tenant);
    const query = rowQuery(t.database.db);
    const [raw] = await query<Record<string, unknown>>(
      'test_page_by_id',
      `SELECT ${selectList(pages)} FROM pages WHERE id = $1`,
      [page.pageId],
    );
    const [viaDrizzle] = await t.database.db.select().from(pages).where(eq(pages.id, page.pageId));
    expect(raw).toEqual(viaDrizzle);
    // Twice: the named statement is reused on PostgreSQL.
    expect(
      await query('test_page_by_id', `SELECT ${selectList(pages)} FROM pages WHERE id = $1`, [page.pageId]),
    ).toEqual([raw]);
  });
});

describe('parseTimestamptz', () => {
  it('reads what PostgreSQL prints in every offset style, as the general parser does', () => {
    const cases = [
      ['2026-11-22 12:08:10.123+00', '2026-11-22T12:08:10.123Z'],
      ['2026-11-22 12:08:10.123456+00', '2026-11-22T12:08:10.123Z'],
      ['2026-11-22 12:08:10+05:30', '2026-11-22T06:38:10.000Z'],
      ['2026-11-22 12:08:10.1-08', '2026-11-22T20:08:10.100Z'],
      ['0099-01-01 00:00:00+00', '0099-01-01T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) expect(parseTimestamptz(text as string).toISOString()).toBe(iso);
    // Outside the fast form: the general parser answers.
    expect(parseTimestamptz('0044-03-15 12:00:00+00 BC').getUTCFullYear()).toBe(-43);
    expect(parseTimestamptz('infinity')).toBe(Number.POSITIVE_INFINITY);
  });
});
