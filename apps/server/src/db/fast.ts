import type { PGlite } from '@electric-sql/pglite';
import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from './client.js';

/**
 * `"column" AS "key", …` for every column of a drizzle table: rows selected with it come back with
 * the table's TypeScript keys, as drizzle's own select returns them (timestamps as Dates, jsonb
 * parsed; `bigint` columns arrive as strings and must be converted by the caller).
 */
export function selectList(table: Table): string {
  return Object.entries(getTableColumns(table))
    .map(([key, column]) => `${pg.escapeIdentifier(column.name)} AS ${pg.escapeIdentifier(key)}`)
    .join(', ');
}

/** Runs one fixed statement and returns its rows. */
export type RowQuery = <Row>(name: string, text: string, values: unknown[]) => Promise<Row[]>;

/**
 * A runner for fixed SQL on the database's own client, bypassing drizzle's query building and
 * row mapping, which cost more CPU than the rest of a list request together. On PostgreSQL each
 * statement is a named prepared statement (parsed once per connection). On a transaction handle
 * it runs on the transaction's connection (drizzle's session client: a pool client, or PGlite's
 * transaction); `fast.test.ts` checks that. `undefined` when the handle has no usable client.
 */
export function rowQuery(db: Db): RowQuery | undefined {
  const client =
    (db as unknown as { session?: { client?: unknown } }).session?.client ??
    (db as { $client?: unknown }).$client;
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    return async <Row>(name: string, text: string, values: unknown[]) =>
      (await client.query({ name, text, values })).rows as Row[];
  }
  if (client && typeof (client as PGlite).query === 'function') {
    const pglite = client as PGlite;
    return async <Row>(_name: string, text: string, values: unknown[]) =>
      (await pglite.query<Row>(text, values)).rows;
  }
  return undefined;
}
