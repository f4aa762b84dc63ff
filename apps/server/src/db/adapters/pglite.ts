import { PGlite, type Transaction } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { acquireDataDirLock } from '../data-dir-lock.js';
import type { Db, StatementObserver, Tx } from '../port.js';
import type { Statement } from '../sql.js';
import type { TenantShare } from '../tenant-share.js';
import {
  asBodyOf,
  type Connection,
  ConnectionTx,
  observed,
  type Result,
  Runner,
  refuseOwnHandle,
} from './connection.js';

const JSON_OID = 114;
const JSONB_OID = 3802;
/** `json-bytes` statements on PGlite: each JSON value as its text, unparsed. */
const JSON_TEXT_PARSERS = { [JSON_OID]: (value: string) => value, [JSONB_OID]: (value: string) => value };

/** Statements on the instance, or on one of its open transactions. */
function sessionConnection(session: PGlite | Transaction): Connection {
  return {
    query: async (statement, values) => {
      const options = statement.format === 'json-bytes' ? { parsers: JSON_TEXT_PARSERS } : undefined;
      const result = await session.query<Record<string, unknown>>(statement.text, values, options);
      return { rows: result.rows, count: Math.max(result.affectedRows ?? 0, result.rows.length) };
    },
    control: async (text) => {
      await session.query(text);
    },
  };
}

/** Takes a unit of a tenant's share; resolves to its release. */
type Gate = () => Promise<() => void>;

/**
 * A {@link Db} on PGlite's one session. PGlite runs one statement or transaction at a time for
 * everyone (a statement waits for an open transaction to end); with a `gate`, each holds a unit of
 * the tenant's share, so one tenant takes at most its share of the queue's places.
 */
class PgliteDb extends Runner implements Db {
  readonly kind = 'db';
  readonly #connection: Connection;

  constructor(
    private readonly pglite: PGlite,
    private readonly gate: Gate | undefined,
    private readonly observer: () => StatementObserver | undefined,
  ) {
    super();
    this.#connection = observed(sessionConnection(pglite), observer);
  }

  protected async execute(statement: Statement<never, unknown>, values: unknown[]): Promise<Result> {
    refuseOwnHandle(this.pglite, `statement ${statement.name || 'unnamed'}`);
    const release = await this.gate?.();
    try {
      return await this.#connection.query(statement, values);
    } finally {
      release?.();
    }
  }

  async transaction<T>(body: (tx: Tx) => Promise<T>): Promise<T> {
    refuseOwnHandle(this.pglite, 'transaction');
    const release = await this.gate?.();
    try {
      // PGlite's own transaction: BEGIN, COMMIT or ROLLBACK, and no other statement in between.
      return await this.pglite.transaction(async (session) => {
        const tx = new ConnectionTx(observed(sessionConnection(session), this.observer));
        try {
          return await asBodyOf(this.pglite, () => body(tx));
        } finally {
          tx.end();
        }
      });
    } finally {
      release?.();
    }
  }
}

/** Options of {@link openPglite}. */
export interface PgliteOptions {
  /** Data directory; `memory://` (or undefined) for an in-memory database. */
  dataDir?: string | undefined;
  /** In-memory only: start from this dump (`dumpDataDir`) instead of an empty cluster. */
  loadDataDir?: Blob | undefined;
}

/** The embedded PostgreSQL (PGlite): one session, in this process. */
export class PgliteDatabase {
  readonly kind = 'pglite';
  readonly pool = undefined;
  /** The handle of no tenant. */
  readonly db: Db;
  #observer: StatementObserver | undefined;

  private constructor(
    readonly pglite: PGlite,
    private readonly unlock: () => void,
  ) {
    this.db = new PgliteDb(pglite, undefined, () => this.#observer);
  }

  /** Opens the data directory (locked against a second process) or an in-memory database. */
  static async open(options: PgliteOptions): Promise<PgliteDatabase> {
    const { dataDir, loadDataDir } = options;
    const inMemory = !dataDir || dataDir.startsWith('memory://');
    const unlock = inMemory ? () => {} : acquireDataDirLock(dataDir);
    try {
      // Extensions the migrations create (trigram search on asset names); bundled with PGlite.
      const extensions = { extensions: { pg_trgm, btree_gin } };
      const pglite = inMemory
        ? new PGlite({ ...extensions, ...(loadDataDir ? { loadDataDir } : {}) })
        : new PGlite(dataDir, extensions);
      await pglite.waitReady;
      return new PgliteDatabase(pglite, unlock);
    } catch (err) {
      unlock();
      throw err;
    }
  }

  /** A handle whose statements and transactions each hold a unit of `tenantId`'s share. */
  forTenant(share: TenantShare, tenantId: string): Db {
    return new PgliteDb(
      this.pglite,
      () => share.acquire(tenantId),
      () => this.#observer,
    );
  }

  /** Passes every statement of every handle through `observer` (tracing). */
  observeStatements(observer: StatementObserver): void {
    this.#observer = observer;
  }

  async ping(): Promise<void> {
    await this.pglite.query('SELECT 1');
  }

  /** PGlite has its one session open already. */
  async warm(): Promise<number> {
    return 1;
  }

  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    const unlisten = await this.pglite.listen(channel, onNotify);
    return async () => {
      if (!this.pglite.closed) await unlisten();
    };
  }

  async close(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
    this.unlock();
  }
}
