import { getTableColumns, type Table } from 'drizzle-orm';

/** How a parameter's value is sent to the database. */
export interface Codec<T> {
  /** The value as the driver sends it (both drivers send strings, numbers, booleans and arrays as they are). */
  encode(value: T): unknown;
}

const asIs = <T>(): Codec<T> => ({ encode: (value) => value });

/** A `text` (or `varchar`) parameter. */
export const text: Codec<string> = asIs();
/** An `int4` (or `int8` within 2^53) parameter. */
export const int: Codec<number> = asIs();
/** A `boolean` parameter. */
export const bool: Codec<boolean> = asIs();
/** A `timestamptz` parameter, sent as its ISO text (no time-zone guessing by the driver). */
export const timestamptz: Codec<Date> = { encode: (value) => value.toISOString() };
/**
 * A `json`/`jsonb` parameter: the value's JSON text. (node-postgres would send a JavaScript array
 * as a PostgreSQL array literal, not as JSON.)
 */
export const json: Codec<unknown> = { encode: (value) => JSON.stringify(value) };
/** A `json`/`jsonb` parameter that already is JSON text (stored as it is, never re-serialised). */
export const jsonText: Codec<string> = asIs();
/** A `bytea` parameter. */
export const bytea: Codec<Uint8Array> = asIs();
/** A `text[]` parameter (null elements are NULL). */
export const textArray: Codec<readonly (string | null)[]> = asIs();
/** An `int4[]` parameter (null elements are NULL). */
export const intArray: Codec<readonly (number | null)[]> = asIs();
/** A `timestamptz[]` parameter (null elements are NULL). */
export const timestamptzArray: Codec<readonly (Date | null)[]> = {
  encode: (values) => values.map((value) => value?.toISOString() ?? null),
};

/** `codec`, also taking null (and undefined, sent as null). */
export function nullable<T>(codec: Codec<T>): Codec<T | null | undefined> {
  return { encode: (value) => (value === null || value === undefined ? null : codec.encode(value)) };
}

/** A parameter of a statement: where `sql` places it, the statement numbers it (`$n`). */
export class Param<T = unknown> {
  constructor(
    readonly key: string,
    readonly codec: Codec<T>,
  ) {}
}

/** A piece of SQL text with parameters in place, made by {@link sql} and composed by it. */
export class Sql {
  constructor(readonly chunks: readonly (string | Param)[]) {}
}

/**
 * The one SQL builder: text with {@link Param}s and other {@link Sql} pieces in place. Values never
 * go into the text; a statement numbers its parameters when it is defined, so pieces written in
 * different files compose without anyone counting `$n`.
 */
export function sql(strings: TemplateStringsArray, ...items: readonly (Sql | Param)[]): Sql {
  const chunks: (string | Param)[] = [];
  strings.forEach((part, i) => {
    chunks.push(part);
    if (i >= items.length) return;
    const item = items[i];
    if (item instanceof Sql) chunks.push(...item.chunks);
    else if (item instanceof Param) chunks.push(item);
    else throw new TypeError('sql: interpolate Sql pieces and statement parameters only, never values');
  });
  return new Sql(chunks);
}

/** Text known when the statement is defined (a constant, a keyword): never a value from a request. */
export function raw(text: string): Sql {
  return new Sql([text]);
}

/** `pieces` separated by `separator`. */
export function join(pieces: readonly Sql[], separator: string): Sql {
  return new Sql(pieces.flatMap((piece, i) => (i === 0 ? piece.chunks : [separator, ...piece.chunks])));
}

/** A quoted SQL identifier. */
export function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Options of {@link columns}. */
export interface ColumnsOptions {
  /** The table's alias in the statement (`alias."column"`). */
  alias?: string;
  /** Put before each key (`"<prefix>key"`), for a joined table read back with {@link joined}. */
  prefix?: string;
  /** Only these columns (by TypeScript key), in this order. */
  keys?: readonly string[];
}

/**
 * `"column" AS "key", …` for the columns of a drizzle table: rows selected with it come back with
 * the table's TypeScript keys (timestamps as Dates, jsonb parsed, int8 as numbers).
 */
export function columns(table: Table, options: ColumnsOptions = {}): Sql {
  const all = getTableColumns(table);
  const keys = options.keys ?? Object.keys(all);
  const from = options.alias ? `${options.alias}.` : '';
  const list = keys.map((key) => {
    const column = all[key];
    if (!column) throw new Error(`columns: the table has no column ${key}`);
    return `${from}${identifier(column.name)} AS ${identifier((options.prefix ?? '') + key)}`;
  });
  return raw(list.join(', '));
}

/** The SQL name of the column a drizzle table has under the TypeScript `key`. */
function columnName(table: Table, key: string): string {
  const column = getTableColumns(table)[key];
  if (!column) throw new Error(`the table has no column ${key}`);
  return identifier(column.name);
}

/**
 * `("column", …) VALUES ($n, …)` for an INSERT of the table's columns named by the keys of
 * `values` (TypeScript keys), each taking the parameter given.
 */
export function insertValues(table: Table, values: Record<string, Param>): Sql {
  const keys = Object.keys(values);
  const names = keys.map((key) => columnName(table, key)).join(', ');
  return join(
    [
      raw(`(${names}) VALUES (`),
      join(
        keys.map((key) => new Sql([values[key] as Param])),
        ', ',
      ),
      raw(')'),
    ],
    '',
  );
}

/** `"column" = $n, …` for an UPDATE of the table's columns named by the keys of `values`. */
export function assignments(table: Table, values: Record<string, Param>): Sql {
  return join(
    Object.entries(values).map(([key, param]) => new Sql([`${columnName(table, key)} = `, param])),
    ', ',
  );
}

/**
 * The row of a joined table out of a row selected with `columns(table, { prefix })`: its keys
 * without the prefix, or `undefined` when the join found none (its `id` is null).
 */
export function joined<Row>(row: Record<string, unknown>, prefix: string): Row | undefined {
  const id = row[`${prefix}id`];
  if (id === null || id === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const key in row) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = row[key];
  return out as Row;
}

/** The parameters a statement declares, by key. */
export type Params = Record<string, Codec<never>>;

/** What a statement's caller passes: a value for each declared parameter. */
export type Input<P extends Params> = { [K in keyof P]: P[K] extends Codec<infer T> ? T : never };

/** The references to a statement's parameters that its SQL places. */
export type Refs<P extends Params> = { [K in keyof P]: Param<Input<P>[K]> };

/** How a statement's result comes back. */
export type ResultFormat = 'values' | 'json-bytes';

/**
 * A statement: a name (the prepared statement's on PostgreSQL), fixed SQL text, the order of its
 * parameters and how a row is read. Handles ({@link Db}, {@link Tx} in `port.ts`) run it.
 */
export interface Statement<I, R> {
  readonly name: string;
  readonly text: string;
  /** The parameters' values in `$n` order. */
  values(input: I): unknown[];
  /** Reads one row (absent: the row as the driver gives it). */
  readonly row: ((raw: Record<string, unknown>) => R) | undefined;
  /**
   * `values`: every column parsed. `json-bytes` (columns of int4 and json/jsonb only): each JSON
   * value as the bytes of its text on node-postgres (binary results: it goes from the socket to
   * the response unparsed, outside the JavaScript heap), as its text on PGlite.
   */
  readonly format: ResultFormat;
}

/** What {@link statement} defines. */
export interface StatementDefinition<P extends Params, R> {
  /** Unique among the server's statements; `''` for a statement never prepared (a test's). */
  name: string;
  params?: P;
  sql: (params: Refs<P>) => Sql;
  row?: (raw: Record<string, unknown>) => R;
  format?: ResultFormat;
}

/** Texts of the statements defined so far, by name: one name never names two texts. */
const defined = new Map<string, string>();

/**
 * Defines a statement. Its text is built and its parameters numbered here, once; a call only
 * orders the input's values. Throws when another statement already has the name with another
 * text, or when the SQL places a parameter the statement does not declare.
 */
export function statement<const P extends Params = Record<never, never>, R = Record<string, unknown>>(
  definition: StatementDefinition<P, R>,
): Statement<Input<P>, R> {
  const declared = (definition.params ?? {}) as P;
  const refs = Object.fromEntries(
    Object.entries(declared).map(([key, codec]) => [key, new Param(key, codec as Codec<unknown>)]),
  ) as Refs<P>;
  const order: Param[] = [];
  const text = definition
    .sql(refs)
    .chunks.map((chunk) => {
      if (typeof chunk === 'string') return chunk;
      if (refs[chunk.key] !== chunk) {
        throw new Error(`statement ${definition.name}: parameter ${chunk.key} is not one it declares`);
      }
      let index = order.indexOf(chunk);
      if (index < 0) index = order.push(chunk) - 1;
      return `$${index + 1}`;
    })
    .join('');
  if (definition.name) {
    const earlier = defined.get(definition.name);
    if (earlier !== undefined && earlier !== text) {
      throw new Error(`statement ${definition.name}: another statement already has this name`);
    }
    defined.set(definition.name, text);
  }
  return {
    name: definition.name,
    text,
    values: (input) =>
      order.map((param) => param.codec.encode((input as Record<string, unknown>)[param.key])),
    row: definition.row === asStored ? undefined : definition.row,
    format: definition.format ?? 'values',
  };
}

/**
 * The text of every named statement defined so far in this process, by name: what the modules
 * imported until now have defined with {@link statement}. Tests read it to check every statement
 * the server can run.
 */
export function definedStatements(): ReadonlyMap<string, string> {
  return new Map(defined);
}

const asStored = (raw: Record<string, unknown>) => raw;

/**
 * Names the row type of a statement whose columns already come back as the row's keys (selected
 * with {@link columns}, or aliased): rows are handed over as the driver gives them, unmapped.
 */
export function rowOf<R>(): (raw: Record<string, unknown>) => R {
  return asStored as (raw: Record<string, unknown>) => R;
}
