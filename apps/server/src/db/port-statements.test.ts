import { describe, expect, it } from 'vitest';
import { addNote, bodyOf, newId, onPostgres, useNotesDatabase } from '../test/port-notes.js';
import { pages } from './schema/index.js';
import { columns, int, json, jsonText, nullable, rowOf, sql, statement, text, timestamptz } from './sql.js';

// The data-access port's specification, on the embedded database and, with TEST_DATABASE_URL, on
// PostgreSQL: what a service can rely on when it runs a statement on a handle, outside a transaction.

const notes = useNotesDatabase();

describe('a statement outside a transaction', () => {
  it('returns its rows under the keys it selects, typed as the schema reads them', async () => {
    const echo = statement({
      name: 'port_test_echo',
      params: { id: text, at: timestamptz, body: json, n: int, none: nullable(text) },
      sql: (
        p,
      ) => sql`SELECT ${p.id}::text AS id, ${p.at}::timestamptz AS "createdAt", ${p.body}::jsonb AS body,
        ${p.n}::int4 AS n, 9007199254740991::int8 AS big, ${p.none}::text AS none`,
    });
    const at = new Date('2026-11-27T10:11:12.345Z');
    const row = await notes.db.database.db.first(echo, { id: 'a', at, body: [{ x: 1 }], n: 7, none: null });
    expect(row).toEqual({
      id: 'a',
      createdAt: at,
      body: [{ x: 1 }],
      n: 7,
      big: 9007199254740991,
      none: null,
    });
    // Twice: on PostgreSQL the second run reuses the statement prepared on the connection.
    expect(
      await notes.db.database.db.first(echo, { id: 'a', at, body: [{ x: 1 }], n: 7, none: null }),
    ).toEqual(row);
  });

  it('selects a table’s columns as its rows are typed (`columns`)', async () => {
    const emptyPage = statement({
      name: 'port_test_page_columns',
      sql: () => sql`SELECT ${columns(pages)} FROM pages WHERE false`,
    });
    expect(await notes.db.database.db.all(emptyPage, {})).toEqual([]);
    expect(emptyPage.text).toContain('"page_context" AS "pageContext"');
  });

  it('counts the rows it wrote', async () => {
    const id = newId();
    expect(await notes.db.database.db.run(addNote, { id, body: 'b' })).toBe(1);
    const none = statement({
      name: 'port_test_update_none',
      sql: () => sql`UPDATE port_notes SET body = body WHERE false`,
    });
    expect(await notes.db.database.db.run(none, {})).toBe(0);
  });

  it('fails with the driver’s error (SQLSTATE and constraint), and the handle goes on', async () => {
    const id = newId();
    await notes.db.database.db.run(addNote, { id, body: 'first' });
    const failure = await notes.db.database.db
      .run(addNote, { id, body: 'again' })
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: '23505', constraint: 'port_notes_pkey' });
    expect(await bodyOf(notes.db.database.db, id)).toBe('first');
  });
});

describe('JSON results as bytes (`json-bytes`)', () => {
  const stored = '{"b": [1,2],  "a":"é \\"q\\" 🙂"}'; // as written: spacing and order kept
  const jsonValues = statement({
    name: 'port_test_json_bytes',
    params: { value: jsonText },
    sql: (p) =>
      sql`SELECT n::int4 AS n, j AS json FROM (VALUES (1, ${p.value}::json), (2, NULL::json)) AS v(n, j) ORDER BY n`,
    row: rowOf<{ n: number; json: Buffer | string | null }>(),
    format: 'json-bytes',
  });

  it('give the text stored, byte for byte, and nothing a driver parsed', async () => {
    const rows = await notes.db.database.db.all(jsonValues, { value: stored });
    expect(rows.map((row) => row.n)).toEqual([1, 2]);
    expect(rows[0]?.json?.toString()).toBe(stored);
    expect(rows[1]?.json).toBeNull();
    // PostgreSQL's binary results are bytes, never JavaScript strings; PGlite gives the text.
    if (onPostgres) expect(Buffer.isBuffer(rows[0]?.json)).toBe(true);
    else expect(typeof rows[0]?.json).toBe('string');
  });

  it('keep their bytes after the connection reads more', async () => {
    const [first] = await notes.db.database.db.all(jsonValues, { value: stored });
    await notes.db.database.db.all(jsonValues, { value: '"x"'.padEnd(100_000, ' ') });
    expect(first?.json?.toString()).toBe(stored);
  });

  it('give jsonb as its text too (columns before migration 0012)', async () => {
    const jsonb = statement({
      name: 'port_test_jsonb_bytes',
      sql: () => sql`SELECT '{"b": 1, "a": [2]}'::jsonb AS json`,
      row: rowOf<{ json: Buffer | string }>(),
      format: 'json-bytes',
    });
    const [row] = await notes.db.database.db.all(jsonb, {});
    expect(JSON.parse(row?.json.toString() ?? '')).toEqual({ a: [2], b: 1 });
  });
});
