import pg from 'pg';
import { DATABASE_DEADLINE_MESSAGE } from '../errors.js';
import { listenPostgres } from '../listen.js';
import type { Db, StatementObserver, Tx } from '../port.js';
import type { Statement } from '../sql.js';
import type { TenantShare } from '../tenant-share.js';
import { parseTimestamptz } from '../timestamptz.js';
import {
  asBodyOf,
  type Connection,
  inTransaction,
  observed,
  type Result,
  Runner,
  refuseOwnHandle,
} from './connection.js';

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
function clientConnection(client: pg.PoolClient): Connection {
  return {
    query: async (statement, values) => resultOf(await client.query(queryConfig(statement, values))),
    control: async (text) => {
      await client.query(text);
    },
  };
}

/** Statements on whichever idle client the pool has (`pool.query` checks one out and back). */
function poolConnection(pool: pg.Pool): Connection {
  return {
    query: async (statement, values) => resultOf(await pool.query(queryConfig(statement, values))),
    control: () => Promise.reject(new Error('transaction control needs a client of its own')),
  };
}

/** Takes a unit of a tenant's share; resolves to its release. */
type Gate = () => Promise<() => void>;

/**
 * A {@link Db} on the pool: each statement on an idle client, each transaction on one client from
 * BEGIN to COMMIT; with a `gate`, each of them holds a unit of the tenant's share meanwhile.
 */
class PoolDb extends Runner implements Db {
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
class ClientDb extends Runner implements HeldDb {
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

/** How much longer than `statement_timeout` the client waits for an answer before it gives up. */
const LOST_LINK_MARGIN_MS = 1000;
/** Idle time after which TCP keepalive probes a connection (a silent peer is found ~10 s later). */
const KEEPALIVE_IDLE_MS = 10_000;
/** How long `ping` (and so `/readyz`) waits for the database. */
export const PING_TIMEOUT_MS = 2000;

/** Rejects with {@link DATABASE_DEADLINE_MESSAGE} when `attempt` has not settled within `ms`. */
async function withDeadline<T>(attempt: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${DATABASE_DEADLINE_MESSAGE} (${ms} ms)`)), ms);
  });
  attempt.catch(() => {});
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link openNodePostgres}. */
export interface NodePostgresOptions {
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number | undefined;
  /** Every statement of the pool's connections is cancelled after this long (SQLSTATE 57014). */
  statementTimeoutMs?: number | undefined;
  /** How long a new connection may take before the checkout fails (default 5 s). */
  connectTimeoutMs?: number | undefined;
}

/** A PostgreSQL server through a node-postgres pool. */
export class NodePostgresDatabase {
  readonly kind = 'postgres';
  readonly pglite = undefined;
  /** The pool (the rate limiter's counters and the pool gauges read it too). */
  readonly pool: pg.Pool;
  /** The handle of no tenant. */
  readonly db: Db;
  readonly #url: string;
  readonly #size: number;
  #observer: StatementObserver | undefined;
  #closed = false;

  constructor(options: NodePostgresOptions) {
    this.#url = options.url;
    this.#size = options.poolSize ?? 10;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: this.#size,
      // Connections are kept once open, never closed for being idle: a pool that shrank in a quiet
      // minute made the next burst's requests wait for new connections (see `warm`).
      min: this.#size,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      ...(options.statementTimeoutMs
        ? {
            statement_timeout: options.statementTimeoutMs,
            // The server cancels a statement at `statement_timeout`; a lost link never answers
            // that cancel, so the client gives up on its own a little later.
            query_timeout: options.statementTimeoutMs + LOST_LINK_MARGIN_MS,
          }
        : {}),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    });
    // An idle client losing its connection must not crash the process; the next query reports it.
    this.pool.on('error', () => {});
    // Nor a checked-out one (e.g. idle inside a transaction when PostgreSQL shuts down, 57P01):
    // without a listener its 'error' event is an uncaught exception. The pending or next query
    // still fails (answered 503) and the pool discards the broken client on release.
    this.pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    this.db = new PoolDb(this.pool, undefined, () => this.#observer);
  }

  /** A handle whose statements and transactions each hold a unit of `tenantId`'s share. */
  forTenant(share: TenantShare, tenantId: string): Db {
    return new PoolDb(
      this.pool,
      () => share.acquire(tenantId),
      () => this.#observer,
    );
  }

  /**
   * A handle on one connection of the pool, held (with a unit of `tenantId`'s share) until its
   * `release`.
   */
  async hold(share: TenantShare, tenantId: string): Promise<HeldDb> {
    const releaseUnit = await share.acquire(tenantId);
    try {
      const client = await this.pool.connect();
      return new ClientDb(client, releaseUnit, () => this.#observer);
    } catch (err) {
      releaseUnit();
      throw err;
    }
  }

  /** Passes every statement of every handle through `observer` (tracing). */
  observeStatements(observer: StatementObserver): void {
    this.#observer = observer;
  }

  /** `SELECT 1`; rejects when no answer came within {@link PING_TIMEOUT_MS}. */
  async ping(): Promise<void> {
    await withDeadline(this.pool.query('SELECT 1'), PING_TIMEOUT_MS);
  }

  async warm(): Promise<number> {
    const opened = await Promise.allSettled(Array.from({ length: this.#size }, () => this.pool.connect()));
    for (const result of opened) if (result.status === 'fulfilled') result.value.release();
    return this.pool.totalCount;
  }

  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    return listenPostgres(this.#url, channel, onNotify);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}
