import type { PGlite } from '@electric-sql/pglite';
import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import { type Db, driverOf } from './client.js';

/**
 * `"column" AS "key", …` for every column of a drizzle table: rows selected with it come back with
 * the table's TypeScript keys, as drizzle's own select returns them (timestamps as Dates, jsonb
 * parsed; `bigint` columns arrive as strings and must be converted by the caller). For a table
 * joined in as `alias`, `alias."column" AS "<prefix>key"` (read back with {@link joinedRow}).
 */
export function selectList(table: Table, joined?: { alias: string; prefix: string }): string {
  const from = joined ? `${joined.alias}.` : '';
  return Object.entries(getTableColumns(table))
    .map(
      ([key, column]) =>
        `${from}${pg.escapeIdentifier(column.name)} AS ${pg.escapeIdentifier((joined?.prefix ?? '') + key)}`,
    )
    .join(', ');
}

/**
 * The row of a joined table out of a row selected with `selectList(table, { alias, prefix })`:
 * its keys without the prefix, or `undefined` when the join found none (its `id` is null).
 */
export function joinedRow<Row>(row: Record<string, unknown>, prefix: string): Row | undefined {
  if (row[`${prefix}id`] === null || row[`${prefix}id`] === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const key in row) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = row[key];
  return out as Row;
}

/** `timestamptz` as PostgreSQL prints it with `DateStyle` ISO: `2026-11-22 12:08:10.123456+00`. */
const TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d{1,6})?)([+-]\d\d)(?::?(\d\d))?$/;

/** The two decimal digits of `s` at `i` as a number (no check: the caller checked the form). */
const twoDigits = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;

/** Whether `s` has an ASCII digit at each of `positions`. */
function digitsAt(s: string, positions: readonly number[]): boolean {
  for (const i of positions) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const DATE_TIME_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] as const;

/**
 * Parses `timestamptz` as PostgreSQL prints it (`2026-11-22 12:08:10.123456+00`, the offset also
 * `±HH:MM`) from its characters, truncating to milliseconds as Date does: about 4 × faster than
 * building an ISO string for the engine's date parser, which a list of 20 pages did 40 times per
 * request. Anything else (years before 100, BC dates, infinity, offsets with seconds) goes the
 * slower way, node-postgres' general parser last.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (
    n < 22 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    !digitsAt(text, DATE_TIME_DIGITS)
  ) {
    return parseTimestamptzSlowly(text);
  }
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    // Fraction: the first three digits are the milliseconds, the rest is truncated.
    i += 1;
    let scale = 100;
    while (i < n) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      ms += d * scale;
      scale = scale === 1 ? 0 : scale / 10;
      i += 1;
    }
  }
  const sign = text.charCodeAt(i);
  const offsetLength = n - i;
  if (
    (sign !== 43 && sign !== 45) || // + -
    (offsetLength !== 3 && !(offsetLength === 6 && text.charCodeAt(i + 3) === 58)) ||
    !digitsAt(text, offsetLength === 3 ? [i + 1, i + 2] : [i + 1, i + 2, i + 4, i + 5])
  ) {
    return parseTimestamptzSlowly(text);
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) return parseTimestamptzSlowly(text);
  const offsetMinutes = twoDigits(text, i + 1) * 60 + (offsetLength === 6 ? twoDigits(text, i + 4) : 0);
  const utc = Date.UTC(
    year,
    twoDigits(text, 5) - 1,
    twoDigits(text, 8),
    twoDigits(text, 11),
    twoDigits(text, 14),
    twoDigits(text, 17),
    ms,
  );
  return new Date(utc - (sign === 45 ? -1 : 1) * offsetMinutes * 60_000);
}

/** The engine's ISO date parser through a regular expression, then node-postgres' general one. */
function parseTimestamptzSlowly(text: string): Date {
  const m = TIMESTAMPTZ.exec(text);
  if (!m) return defaultTimestamptz(text) as Date;
  return new Date(`${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}`);
}

const defaultTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');

/** node-postgres' parsers, but for `timestamptz`. */
const FAST_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary'
      ? parseTimestamptz
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

/** Runs one fixed statement and returns its rows. */
export type RowQuery = <Row>(name: string, text: string, values: unknown[]) => Promise<Row[]>;

/**
 * A runner for fixed SQL on the database's own client, bypassing drizzle's query building and
 * row mapping, which cost more CPU than the rest of a list request together. On PostgreSQL each
 * statement is a named prepared statement (parsed once per connection). On a transaction handle
 * it runs on the transaction's connection ({@link driverOf}: a pool client, or PGlite's
 * transaction); `fast.test.ts` checks that. Throws for a handle openDatabase did not make.
 */
export function rowQuery(db: Db): RowQuery {
  const client = driverOf(db);
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    return async <Row>(name: string, text: string, values: unknown[]) =>
      (await client.query({ name, text, values, types: FAST_TYPES })).rows as Row[];
  }
  if (client && typeof (client as PGlite).query === 'function') {
    const pglite = client as PGlite;
    return async <Row>(_name: string, text: string, values: unknown[]) =>
      (await pglite.query<Row>(text, values)).rows;
  }
  throw new Error('rowQuery: this database handle has no node-postgres or PGlite client');
}

/** A `json` value as {@link jsonBytesQuery} returns it: its UTF-8 bytes, or its text on PGlite. */
export type JsonValueText = Buffer | string;

const JSON_OID = pg.types.builtins.JSON;
const JSONB_OID = pg.types.builtins.JSONB;
const INT4_OID = pg.types.builtins.INT4;

/**
 * A value's bytes, kept as they are when they own their memory (node-postgres decodes each field
 * to a string and hands a binary one over as a new `Buffer` of it), copied when they are a view
 * into a larger buffer that the driver could reuse. Not copying matters: every copy of a 4 MiB
 * history is 4 MiB more allocated outside the JavaScript heap, and enough of that between
 * collections starts a full one. Measured while one tenant read its 4 MiB history over and over:
 * about one full collection a second with the copy (5-15 ms pauses for every tenant), none without.
 */
const ownBytes = (value: Buffer): Buffer =>
  value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : Buffer.from(value);

/**
 * Binary results: `json` as the text's bytes and `jsonb` likewise (after its version byte), never
 * a view of the driver's buffer ({@link ownBytes}); `int4` as a number; anything else as its
 * bytes. (A parser must not throw: node-postgres would never settle the query.)
 */
const JSON_BYTES_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') return pg.types.getTypeParser(oid, format ?? 'text');
    if (oid === INT4_OID) return (value: Buffer) => value.readInt32BE(0);
    if (oid === JSONB_OID) return (value: Buffer) => ownBytes(value).subarray(1);
    return ownBytes;
  }) as unknown as typeof pg.types.getTypeParser,
};

/** `config` asking for binary results (node-postgres' `binary`, which its types do not list). */
const binaryQuery = (config: pg.QueryConfig): pg.QueryConfig =>
  ({ ...config, binary: true }) as pg.QueryConfig;

/**
 * A runner for a fixed statement selecting `int4` and `json` (or `jsonb`) columns only, which
 * returns each JSON value as the bytes of its text (binary results on node-postgres): a large
 * stored JSON text goes from the socket to the response as bytes, outside the JavaScript heap, and
 * is never parsed (the driver decodes each field to a string on the way, which lives only until
 * the next field). PGlite gives the text.
 */
export function jsonBytesQuery(db: Db) {
  const parsers = { [JSON_OID]: (value: string) => value, [JSONB_OID]: (value: string) => value };
  const client = driverOf(db);
  return async <Row extends Record<string, number | JsonValueText | null>>(
    name: string,
    text: string,
    values: unknown[],
  ): Promise<Row[]> => {
    if (client instanceof pg.Pool || client instanceof pg.Client)
      return (await client.query(binaryQuery({ name, text, values, types: JSON_BYTES_TYPES }))).rows as Row[];
    const pglite = client as Pick<PGlite, 'query'>;
    return (await pglite.query<Row>(text, values, { parsers })).rows;
  };
}
