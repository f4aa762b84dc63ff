import pg from 'pg';
import type { Statement } from '../sql.js';
import { parseTimestamptz } from '../timestamptz.js';
import type { Connection, Result } from './connection.js';

const { builtins } = pg.types;

/**
 * node-postgres' parsers, but `timestamptz` read by {@link parseTimestamptz} and `int8` as a number
 * (as PGlite reads it; every int8 column of the schema is a count or a millisecond instant).
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return pg.types.getTypeParser(oid, format);
    if (oid === builtins.TIMESTAMPTZ) return parseTimestamptz;
    if (oid === builtins.INT8) return Number;
    return pg.types.getTypeParser(oid, 'text');
  }) as typeof pg.types.getTypeParser,
};

/**
 * A value's bytes, kept as they are when they own their memory (node-postgres hands a binary field
 * over as a new `Buffer`), copied when they are a view into a larger buffer the driver could reuse.
 * Not copying matters: every copy of a 4 MiB history is 4 MiB more allocated outside the heap, and
 * enough of that between collections starts a full one (about one a second, 5-15 ms pauses for
 * every tenant, while one tenant read its 4 MiB history over and over).
 */
const ownBytes = (value: Buffer): Buffer =>
  value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? value : Buffer.from(value);

/**
 * Binary results for `json-bytes` statements: `json` as the text's bytes and `jsonb` likewise
 * (after its version byte), `int4` as a number, anything else as its bytes. (A parser must not
 * throw: node-postgres would never settle the query.)
 */
const JSON_BYTES_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') return pg.types.getTypeParser(oid, format ?? 'text');
    if (oid === builtins.INT4) return (value: Buffer) => value.readInt32BE(0);
    if (oid === builtins.JSONB) return (value: Buffer) => ownBytes(value).subarray(1);
    return ownBytes;
  }) as unknown as typeof pg.types.getTypeParser,
};

/** The driver's query for a statement: named (prepared once per connection) unless unnamed. */
function queryConfig(statement: Statement<never, unknown>, values: unknown[]): pg.QueryConfig {
  const config: pg.QueryConfig & { binary?: boolean } = {
    text: statement.text,
    values,
    types: statement.format === 'json-bytes' ? JSON_BYTES_TYPES : TYPES,
  };
  if (statement.name) config.name = statement.name;
  if (statement.format === 'json-bytes') config.binary = true;
  return config;
}

const resultOf = (result: pg.QueryResult): Result => ({
  rows: result.rows as Record<string, unknown>[],
  count: result.rowCount ?? result.rows.length,
});

/** Statements on one checked-out client (a transaction's). */
export function clientConnection(client: pg.PoolClient): Connection {
  return {
    query: async (statement, values) => resultOf(await client.query(queryConfig(statement, values))),
    control: async (text) => {
      await client.query(text);
    },
  };
}

/** Statements on whichever idle client the pool has (`pool.query` checks one out and back). */
export function poolConnection(pool: pg.Pool): Connection {
  return {
    query: async (statement, values) => resultOf(await pool.query(queryConfig(statement, values))),
    control: () => Promise.reject(new Error('transaction control needs a client of its own')),
  };
}
