import type { Statement } from './sql.js';

/**
 * The data-access port: what services and repos run statements on. Every statement goes through
 * one of these handles, and which handle it is says where it runs:
 *
 * - a {@link Db} takes a connection for each statement (PostgreSQL: from the pool; PGlite: its one
 *   session) and gives it back; `transaction` holds one connection from BEGIN to COMMIT;
 * - a {@link Tx} is an open transaction: its statements run on that transaction's connection, and
 *   its `transaction` is a SAVEPOINT, released with it or rolled back to on a throw.
 *
 * A tenant's request gets a `Db` bounded by the tenant's share of connections
 * (`Database.forTenant`); background work (the dispatcher, the CLI) uses `Database.db`.
 */
export interface Queryable {
  /** Every row the statement returns. */
  all<I, R>(statement: Statement<I, R>, input: I): Promise<R[]>;
  /** The first row the statement returns, or `undefined`. */
  first<I, R>(statement: Statement<I, R>, input: I): Promise<R | undefined>;
  /** Runs the statement; resolves to the number of rows it inserted, updated, deleted or returned. */
  run<I>(statement: Statement<I, unknown>, input: I): Promise<number>;
}

/** A handle taking a connection per statement, or one for a transaction. */
export interface Db extends Queryable {
  readonly kind: 'db';
  /**
   * Runs `body` in a transaction on one connection: committed when it resolves, rolled back when
   * it throws (the throw is passed on).
   */
  transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T>;
}

/** An open transaction. */
export interface Tx extends Queryable {
  readonly kind: 'tx';
  /**
   * Runs `body` in a savepoint of this transaction: released when it resolves (its writes commit
   * with the transaction), rolled back to when it throws (the rest of the transaction goes on).
   */
  transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T>;
}

/** Either handle: what a service takes when it may run inside a caller's transaction. */
export type Handle = Db | Tx;

/** A statement as tracing sees it: its name and text, never its values. */
export interface StatementInfo {
  readonly name: string;
  readonly text: string;
}

/**
 * Wraps the execution of every statement a database runs (transaction control included), e.g. in
 * a tracing span. It must call `execute` once and pass on its outcome.
 */
export type StatementObserver = <T>(statement: StatementInfo, execute: () => Promise<T>) => Promise<T>;

/** The limits of one tenant's share of the database. */
export interface TenantShareLimits {
  /** Connections (PostgreSQL) or statements and transactions (PGlite) one tenant holds at once. */
  concurrency: number;
  /** How long a statement waits for the tenant's share before failing with `TenantShareExceeded`. */
  queueMs: number;
}
