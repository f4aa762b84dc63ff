import { expect } from 'vitest';
import type { Db, Handle } from '../db/port.js';
import type { Statement } from '../db/sql.js';

/**
 * Runs SQL a test writes out to arrange or inspect stored state (`$n` parameters, `values` in
 * order), as an unnamed statement through the port: tests reach the tables the way the server
 * does. Production code defines its statements with `statement()` instead.
 */
export async function query<R = Record<string, unknown>>(
  db: Handle,
  text: string,
  values: readonly unknown[] = [],
): Promise<R[]> {
  const adHoc: Statement<null, R> = {
    name: '',
    text,
    values: () => [...values],
    row: undefined,
    format: 'values',
  };
  return db.all(adHoc, null);
}

/** A statement as it is sent: its text and the values bound to it. */
export interface Sent {
  text: string;
  values: unknown[];
}

/**
 * The one statement `run` sends, exactly as it sends it: `run` works on `db` through a handle
 * that keeps the text and values of each statement it passes on (and allows no transaction).
 */
export async function statementOf(db: Db, run: (db: Handle) => Promise<unknown>): Promise<Sent> {
  const seen: Sent[] = [];
  const recording: Db = {
    kind: 'db',
    all: (statement, input) => {
      seen.push({ text: statement.text, values: statement.values(input) });
      return db.all(statement, input);
    },
    first: (statement, input) => {
      seen.push({ text: statement.text, values: statement.values(input) });
      return db.first(statement, input);
    },
    run: (statement, input) => {
      seen.push({ text: statement.text, values: statement.values(input) });
      return db.run(statement, input);
    },
    transaction: () => Promise.reject(new Error('the statement under test runs no transaction')),
  };
  await run(recording);
  expect(seen).toHaveLength(1);
  return seen[0] as Sent;
}

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    const items = value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`));
    return literal(`{${items.join(',')}}`);
  }
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `'${text.replaceAll("'", "''")}'`;
};

/**
 * The plan PostgreSQL keeps for a prepared statement once it stops planning each run (its
 * generic plan, made without the values), as `EXPLAIN (FORMAT JSON)` gives it. The statement is
 * prepared and explained in a transaction that is rolled back, then deallocated.
 */
export async function genericPlan(db: Db, sent: Sent): Promise<unknown> {
  const name = `generic_plan_${Math.random().toString(36).slice(2)}`;
  let plan: unknown;
  await db
    .transaction(async (tx) => {
      await query(tx, 'SET LOCAL plan_cache_mode = force_generic_plan');
      await query(tx, `PREPARE ${name} AS ${sent.text}`);
      try {
        const [row] = await query<{ 'QUERY PLAN': unknown }>(
          tx,
          `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${sent.values.map(literal).join(', ')})`,
        );
        plan = row?.['QUERY PLAN'];
      } finally {
        await query(tx, `DEALLOCATE ${name}`);
      }
      throw new Error('rollback');
    })
    .catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    });
  return plan;
}

/** Every scan of `table` in a JSON plan, with the index it uses (undefined: none). */
export function scansOf(plan: unknown, table: string): Array<{ node: string; index: string | undefined }> {
  const found: Array<{ node: string; index: string | undefined }> = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record['Relation Name'] === table && typeof record['Node Type'] === 'string') {
      found.push({ node: record['Node Type'], index: record['Index Name'] as string | undefined });
    }
    for (const value of Object.values(record)) visit(value);
  };
  visit(plan);
  return found;
}
