import { AsyncLocalStorage } from 'node:async_hooks';
import type { Queryable, StatementObserver, Tx } from '../port.js';
import type { Statement } from '../sql.js';

/** What a driver answers to a statement: its rows and how many it touched or returned. */
export interface Result {
  rows: Record<string, unknown>[];
  count: number;
}

/** Runs statements on one connection (or on a database that takes one per statement). */
export interface Connection {
  /** Runs a defined statement with its values in `$n` order. */
  query(statement: Statement<never, unknown>, values: unknown[]): Promise<Result>;
  /** Runs transaction control (`BEGIN`, `SAVEPOINT s1`, …): fixed text, no parameters. */
  control(text: string): Promise<void>;
}

/** A connection whose statements pass through `observer` (when set) first. */
export function observed(connection: Connection, observer: () => StatementObserver | undefined): Connection {
  return {
    query: (statement, values) => {
      const observe = observer();
      return observe
        ? observe(statement, () => connection.query(statement, values))
        : connection.query(statement, values);
    },
    control: (text) => {
      const observe = observer();
      return observe ? observe({ name: '', text }, () => connection.control(text)) : connection.control(text);
    },
  };
}

/** The rows of `result` as the statement reads them. */
function rowsOf<R>(statement: Statement<never, R>, result: Result): R[] {
  return statement.row ? result.rows.map(statement.row) : (result.rows as R[]);
}

/**
 * The three ways of running a statement, over one `execute`: what every handle of both adapters
 * shares.
 */
export abstract class Runner implements Queryable {
  protected abstract execute(statement: Statement<never, unknown>, values: unknown[]): Promise<Result>;

  async all<I, R>(statement: Statement<I, R>, input: I): Promise<R[]> {
    const result = await this.execute(statement as Statement<never, unknown>, statement.values(input));
    return rowsOf(statement as Statement<never, R>, result);
  }

  async first<I, R>(statement: Statement<I, R>, input: I): Promise<R | undefined> {
    return (await this.all(statement, input))[0];
  }

  async run<I>(statement: Statement<I, unknown>, input: I): Promise<number> {
    return (await this.execute(statement as Statement<never, unknown>, statement.values(input))).count;
  }
}

/**
 * An open transaction on `connection`: statements run there while it is open, and fail once it is
 * over (a statement sent after COMMIT would silently run outside it). Its `transaction` is a
 * savepoint.
 */
export class ConnectionTx extends Runner implements Tx {
  readonly kind = 'tx';
  #open = true;
  #savepoints = 0;

  constructor(private readonly connection: Connection) {
    super();
  }

  protected execute(statement: Statement<never, unknown>, values: unknown[]): Promise<Result> {
    if (!this.#open) return Promise.reject(new Error(`statement ${statement.name}: the transaction is over`));
    return this.connection.query(statement, values);
  }

  async transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    if (!this.#open) throw new Error('savepoint: the transaction is over');
    this.#savepoints += 1;
    const name = `s${this.#savepoints}`;
    await this.connection.control(`SAVEPOINT ${name}`);
    const inner = new ConnectionTx(this.connection);
    try {
      const result = await body(inner);
      await this.connection.control(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await this.connection.control(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    } finally {
      inner.end();
    }
  }

  /** Marks the transaction over: later statements on this handle fail. */
  end(): void {
    this.#open = false;
  }
}

/**
 * Runs `body` in a transaction on `connection` (BEGIN … COMMIT, ROLLBACK on a throw). Resolves to
 * the body's result; `broken` receives a failure of the ROLLBACK itself (the connection cannot be
 * reused then).
 */
export async function inTransaction<T>(
  connection: Connection,
  body: (tx: Tx) => Promise<T>,
  broken: (err: Error) => void,
): Promise<T> {
  await connection.control('BEGIN');
  const tx = new ConnectionTx(connection);
  try {
    const result = await body(tx);
    await connection.control('COMMIT');
    return result;
  } catch (err) {
    await connection.control('ROLLBACK').catch((rollbackFailed: Error) => broken(rollbackFailed));
    throw err;
  } finally {
    tx.end();
  }
}

/** The database (pool, client or PGlite instance) whose transaction's body is running, if any. */
const bodyOf = new AsyncLocalStorage<object>();

/**
 * Runs `body` as the body of a transaction on `owner` (the pool, client or PGlite instance under
 * the handle): meanwhile {@link refuseOwnHandle} refuses a statement or transaction on a handle of
 * `owner` itself, which would run outside the open transaction (or, on PGlite's one session, wait
 * for it forever).
 */
export function asBodyOf<T>(owner: object, body: () => Promise<T>): Promise<T> {
  return bodyOf.run(owner, body);
}

/** Throws when a transaction of `owner` is open in this call chain (see {@link asBodyOf}). */
export function refuseOwnHandle(owner: object, what: string): void {
  if (bodyOf.getStore() === owner) {
    throw new Error(
      `${what}: run on the database handle inside one of its transactions, so outside it; use the transaction's handle`,
    );
  }
}
