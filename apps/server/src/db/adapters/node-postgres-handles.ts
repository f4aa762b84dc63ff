import type pg from 'pg';
import type { Db, StatementObserver, Tx } from '../port.js';
import type { Statement } from '../sql.js';
import {
  asBodyOf,
  type Connection,
  inTransaction,
  observed,
  type Result,
  Runner,
  refuseOwnHandle,
} from './connection.js';
import { clientConnection, poolConnection } from './node-postgres-queries.js';

/** Takes a unit of a tenant's share; resolves to its release. */
type Gate = () => Promise<() => void>;

/**
 * A {@link Db} on the pool: each statement on an idle client, each transaction on one client from
 * BEGIN to COMMIT; with a `gate`, each of them holds a unit of the tenant's share meanwhile.
 */
export class PoolDb extends Runner implements Db {
  readonly kind = 'db';
  readonly #connection: Connection;

  constructor(
    private readonly pool: pg.Pool,
    private readonly gate: Gate | undefined,
    private readonly observer: () => StatementObserver | undefined,
  ) {
    super();
    this.#connection = observed(poolConnection(pool), observer);
  }

  protected async execute(statement: Statement<never, unknown>, values: unknown[]): Promise<Result> {
    refuseOwnHandle(this.pool, `statement ${statement.name || 'unnamed'}`);
    if (!this.gate) return this.#connection.query(statement, values);
    const release = await this.gate();
    try {
      return await this.#connection.query(statement, values);
    } finally {
      release();
    }
  }

  async transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    refuseOwnHandle(this.pool, 'transaction');
    const release = await this.gate?.();
    try {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        const connection = observed(clientConnection(client), this.observer);
        return await inTransaction(
          connection,
          (tx) => asBodyOf(this.pool, () => body(tx)),
          (err) => {
            broken = err;
          },
        );
      } finally {
        client.release(broken);
      }
    } finally {
      release?.();
    }
  }
}

/**
 * A {@link Db} on one connection, held until `release`: every statement and transaction of its
 * holder runs on the same server (what a read from a standby needs, since the standby behind a
 * balancing frontend is chosen per connection).
 */
export interface HeldDb extends Db {
  /** The first error one of its statements (or BEGIN, COMMIT) failed with; undefined while none did. */
  readonly failure: unknown;
  /** Identifies the connection it holds (the same object each time that connection is held). */
  readonly connection: object;
  /** Gives the connection (dropped after a failure) and the tenant's unit back; call once. */
  release(): void;
}

/** A {@link HeldDb} on one checked-out client. */
export class ClientDb extends Runner implements HeldDb {
  readonly kind = 'db';
  failure: unknown;
  readonly #connection: Connection;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly releaseUnit: () => void,
    observer: () => StatementObserver | undefined,
  ) {
    super();
    const connection = observed(clientConnection(client), observer);
    const noted = <T>(attempt: Promise<T>) =>
      attempt.catch((err: unknown) => {
        this.failure ??= err;
        throw err;
      });
    this.#connection = {
      query: (statement, values) => noted(connection.query(statement, values)),
      control: (text) => noted(connection.control(text)),
    };
  }

  get connection(): object {
    return this.client;
  }

  protected execute(statement: Statement<never, unknown>, values: unknown[]): Promise<Result> {
    refuseOwnHandle(this.client, `statement ${statement.name || 'unnamed'}`);
    return this.#connection.query(statement, values);
  }

  transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    refuseOwnHandle(this.client, 'transaction');
    return inTransaction(
      this.#connection,
      (tx) => asBodyOf(this.client, () => body(tx)),
      (err) => {
        this.failure ??= err;
      },
    );
  }

  release(): void {
    this.client.release(this.failure === undefined ? undefined : (this.failure as Error));
    this.releaseUnit();
  }
}
