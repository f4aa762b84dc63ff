import pg from 'pg';
import { DATABASE_DEADLINE_MESSAGE } from '../errors.js';
import { listenPostgres } from '../listen.js';
import type { Db, StatementObserver } from '../port.js';
import type { TenantShare } from '../tenant-share.js';
import { ClientDb, type HeldDb, PoolDb } from './node-postgres-handles.js';

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
