import { AsyncLocalStorage } from 'node:async_hooks';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import type { StatementTracing } from '../tracing/types.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import * as schema from './schema/index.js';
import type { TenantShare } from './tenant-share.js';

/** The database schema (every table). */
export type Schema = typeof schema;

/** A database handle or an open transaction: both run queries the same way. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/**
 * What runs a handle's statements underneath drizzle: the pool or a checked-out pool client on
 * PostgreSQL, the instance or its open transaction on PGlite.
 */
export type Driver = pg.Pool | pg.PoolClient | PGlite | Transaction;

const DRIVER = Symbol('driver');

type Tagged = Db & { [DRIVER]?: Driver };

/**
 * The driver under a handle from {@link openDatabase}, or under a transaction opened on one (its
 * own connection: a statement sent there sees the transaction's writes and rolls back with it).
 * Throws for a handle this module did not make.
 */
export function driverOf(db: Db): Driver {
  const driver = (db as Tagged)[DRIVER];
  if (!driver) throw new Error('driverOf: this handle was not opened by openDatabase');
  return driver;
}

type TransactionBody<T> = (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>;
type TransactionConfig = Parameters<Db['transaction']>[1];

/** Where a transaction being opened receives the connection drizzle takes for it. */
const opening = new AsyncLocalStorage<{ driver?: Driver }>();

/** Notes `driver` as the connection of the transaction being opened in this async context, if any. */
function noteTransactionDriver(driver: Driver): void {
  const slot = opening.getStore();
  if (slot && !slot.driver) slot.driver = driver;
}

/**
 * Tags `db` with its driver and makes every transaction opened on it tagged too: a root handle's
 * transaction with the connection drizzle takes for it (noted by the pool's `connect` or PGlite's
 * `transaction`), a nested one (a savepoint) with its parent's.
 */
function withDriver(db: Db, driver: Driver): Db {
  const tagged = db as Tagged;
  const transaction = db.transaction.bind(db);
  const nested = !(driver instanceof pg.Pool || driver instanceof PGlite);
  tagged[DRIVER] = driver;
  tagged.transaction = <T>(fn: TransactionBody<T>, config?: TransactionConfig): Promise<T> => {
    const slot: { driver?: Driver } = nested ? { driver } : {};
    return opening.run(slot, () =>
      transaction(async (tx) => {
        if (!slot.driver) throw new Error('the connection of a new transaction was not noted');
        withDriver(tx as unknown as Db, slot.driver);
        return fn(tx);
      }, config),
    );
  };
  return db;
}

/** An open database with its lifecycle. */
export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The node-postgres pool when {@link Database.kind} is `postgres` (shared with the rate limiter). */
  pool: pg.Pool | undefined;
  /** The PGlite instance when {@link Database.kind} is `pglite`. */
  pglite: PGlite | undefined;
  /** Runs `SELECT 1`; rejects when the database is unreachable. */
  ping(): Promise<void>;
  /**
   * Opens every connection of the pool now (PostgreSQL; PGlite has its one already), so no
   * request waits for PostgreSQL to start a connection: that took 20-75 ms on a loaded machine,
   * paid by whichever tenant's request found the pool short. Resolves to the connections open
   * (fewer than the pool's size when PostgreSQL refused some; the rest open on demand, as before).
   */
  warm(): Promise<number>;
  /**
   * Calls `onNotify` for every `NOTIFY` on `channel` until the returned function is called. On
   * PostgreSQL a dedicated connection listens and reconnects by itself after losing the server;
   * notifications sent while it is down are lost, so callers keep a slower poll as a fallback.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /**
   * Puts the bulkhead in front of the database: from now on, work running inside
   * `share.run(tenantId, …)` holds at most the tenant's share of connections (PostgreSQL) or of
   * queued statements (PGlite, one connection). `buildApp` installs it for the API's requests.
   */
  useTenantShare(share: TenantShare): void;
  /** Hands every connection (PostgreSQL) or the instance (PGlite) to tracing, which spans its statements. */
  traceStatements(tracing: StatementTracing): void;
  close(): Promise<void>;
}

/** Where to open the database. */
export interface DatabaseLocation {
  /** A PostgreSQL URL; PGlite is used when absent. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` (or undefined) for an in-memory database. */
  dataDir?: string | undefined;
  /** In-memory PGlite only: start from this dump (`dumpDataDir`) instead of an empty cluster. */
  loadDataDir?: Blob | undefined;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number | undefined;
  /**
   * PostgreSQL: every statement of the pool's connections is cancelled after this long (SQLSTATE
   * 57014), so no request can hold a connection and a core for longer. Unset: no limit (the CLI).
   */
  statementTimeoutMs?: number | undefined;
}

/** Opens PostgreSQL when a URL is given, else PGlite (on disk in `dataDir`, or in memory). */
export async function openDatabase(location: DatabaseLocation): Promise<Database> {
  if (location.databaseUrl) return openPostgres(location.databaseUrl, location);
  return openPglite(location.dataDir, location.loadDataDir);
}

/**
 * A pool whose checkouts first take a unit of the current tenant's share (when one is set), and
 * give it back on release. `pool.query` checks out through `connect` too, and drizzle opens its
 * transactions with `connect`, so every statement of a request passes here.
 */
class SharedPool extends pg.Pool {
  share: TenantShare | undefined;

  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads (promise or callback) in one body.
  override connect(callback?: any): any {
    const share = this.share;
    if (!share && !callback) {
      return super.connect().then((client) => {
        noteTransactionDriver(client);
        return client;
      });
    }
    if (!share) return super.connect(callback);
    const checkout = share.acquire().then((release) => this.#checkout(release));
    if (!callback) return checkout;
    checkout.then(
      (client) => callback(undefined, client, client.release),
      (err) => callback(err),
    );
    return undefined;
  }

  /**
   * A client whose release also gives back the tenant's unit. Made here, not inside `connect`: a
   * closure made there would keep `connect`'s callback, and through it the promise of the last
   * query run on the client with its rows, for as long as the client sits idle in the pool (each
   * idle client held its last result: megabytes after a history read, surviving young-generation
   * collections and promoted by them).
   */
  async #checkout(release: () => void): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await super.connect();
    } catch (err) {
      release();
      throw err;
    }
    const releaseClient = client.release.bind(client);
    client.release = (err?: Error | boolean) => {
      release();
      return releaseClient(err);
    };
    noteTransactionDriver(client);
    return client;
  }
}

function openPostgres(url: string, location: DatabaseLocation): Database {
  const size = location.poolSize ?? 10;
  const pool = new SharedPool({
    connectionString: url,
    max: size,
    // Connections are kept once open, never closed for being idle: a pool that shrank in a quiet
    // minute made the next burst's requests wait for new connections (see `warm`).
    min: size,
    connectionTimeoutMillis: 5000,
    ...(location.statementTimeoutMs ? { statement_timeout: location.statementTimeoutMs } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor a checked-out one (e.g. idle inside a transaction when PostgreSQL shuts down, 57P01):
  // without a listener its 'error' event is an uncaught exception. The pending or next query
  // still fails (answered 503) and the pool discards the broken client on release.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = withDriver(drizzlePg({ client: pool, schema }) as unknown as Db, pool);
  let closed = false;
  return {
    db,
    kind: 'postgres',
    pool,
    pglite: undefined,
    ping: async () => {
      await pool.query('SELECT 1');
    },
    warm: async () => {
      const opened = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
      for (const result of opened) if (result.status === 'fulfilled') result.value.release();
      return pool.totalCount;
    },
    listen: (channel, onNotify) => listenPostgres(url, channel, onNotify),
    useTenantShare: (share) => {
      pool.share = share;
    },
    traceStatements: (tracing) => {
      pool.on('acquire', (client) => tracing.postgresClient(client));
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<Database> {
  const inMemory = !dataDir || dataDir.startsWith('memory://');
  const release = inMemory ? () => {} : acquireDataDirLock(dataDir);
  let client: PGlite;
  try {
    // Extensions the migrations create (trigram search on asset names); bundled with PGlite.
    const options = { extensions: { pg_trgm, btree_gin } };
    client = inMemory
      ? new PGlite({ ...options, ...(loadDataDir ? { loadDataDir } : {}) })
      : new PGlite(dataDir, options);
    await client.waitReady;
  } catch (err) {
    release();
    throw err;
  }
  notePgliteTransactions(client);
  const db = withDriver(drizzlePglite({ client, schema }) as unknown as Db, client);
  return {
    db,
    kind: 'pglite',
    pool: undefined,
    pglite: client,
    ping: async () => {
      await client.query('SELECT 1');
    },
    warm: async () => 1,
    listen: async (channel, onNotify) => {
      const unlisten = await client.listen(channel, onNotify);
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    useTenantShare: (share) => shareStatements(client, share),
    traceStatements: (tracing) => tracing.pglite(client),
    close: async () => {
      if (!client.closed) await client.close();
      release();
    },
  };
}

/** Makes PGlite's transactions note themselves as the connection of the transaction being opened. */
function notePgliteTransactions(client: PGlite): void {
  const transaction = client.transaction.bind(client);
  client.transaction = <T>(callback: (tx: Transaction) => Promise<T>): Promise<T> =>
    transaction((tx) => {
      noteTransactionDriver(tx);
      return callback(tx);
    });
}

/** How long a lost LISTEN connection waits before it reconnects. */
const RELISTEN_DELAY_MS = 1000;

/**
 * A LISTEN on its own connection (never a pooled one), re-established after errors; never
 * rejects: while no connection listens, the caller's poll is what finds new work.
 */
async function listenPostgres(
  url: string,
  channel: string,
  onNotify: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    let gone = false;
    const lost = () => {
      if (gone) return;
      gone = true;
      if (client === next) client = undefined;
      next.removeAllListeners('notification');
      void next.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void connect(), RELISTEN_DELAY_MS).unref();
    };
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      lost();
      return;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    // Whatever was committed while no connection listened: the caller looks once.
    onNotify();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

/**
 * PGlite runs one statement at a time for everyone; the share bounds how many of the queue's
 * places one tenant takes, so another tenant's statement waits behind at most that many. Its
 * transactions run on private methods, so one request's transaction takes one unit.
 */
function shareStatements(client: PGlite, share: TenantShare): void {
  for (const method of ['query', 'exec', 'transaction'] as const) {
    const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const release = await share.acquire();
      try {
        return await original(...args);
      } finally {
        release();
      }
    };
  }
}
