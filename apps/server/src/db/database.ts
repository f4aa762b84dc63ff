import { NodePostgresDatabase } from './adapters/node-postgres.js';
import { PgliteDatabase } from './adapters/pglite.js';

/**
 * An open database: PostgreSQL through node-postgres, or the embedded PGlite. Both adapters give
 * the same port (`port.ts`): `db`, the handle of no tenant, and `forTenant(share, tenantId)`, the
 * handle of one tenant's requests. The driver itself (`pool`, `pglite`) is reached only by what
 * works below the port: migrations, the rate limiter's counters, the pool gauges, the test
 * snapshot.
 */
export type Database = NodePostgresDatabase | PgliteDatabase;

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
  if (location.databaseUrl) {
    return new NodePostgresDatabase({
      url: location.databaseUrl,
      poolSize: location.poolSize,
      statementTimeoutMs: location.statementTimeoutMs,
    });
  }
  return PgliteDatabase.open({ dataDir: location.dataDir, loadDataDir: location.loadDataDir });
}
