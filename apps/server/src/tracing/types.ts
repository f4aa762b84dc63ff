import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

/** How a {@link Database} hands its connections to tracing (see `Database.traceStatements`). */
export interface StatementTracing {
  /** Called on every checkout of a PostgreSQL pool client; instruments each client once. */
  postgresClient(client: pg.PoolClient): void;
  /** Instruments the PGlite instance (its statements and transactions). */
  pglite(client: PGlite): void;
}
