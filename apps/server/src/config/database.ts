import { z } from 'zod';
import { flag, invalid, positiveInt, urlOf } from './values.js';

const postgresUrl = urlOf(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://');

/** The variables of the database, its standby and each tenant's share of it. */
export const DATABASE_ENV = {
  DATABASE_URL: postgresUrl,
  DATABASE_REPLICA_URL: postgresUrl,
  DATABASE_REPLICA_MAX_LAG_MS: positiveInt(5_000, 0),
  DATA_DIR: z.string().min(1).default('./.data'),
  DATABASE_POOL_SIZE: positiveInt(10, 2),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(5_000, 100),
  TENANT_DB_CONCURRENCY: positiveInt(4),
  TENANT_DB_QUEUE_MS: positiveInt(1_000, 0),
  TENANT_RESPONSE_BYTES_PER_S: positiveInt(4 * 1024 * 1024, 64 * 1024),
  MIGRATE_ON_START: flag(true),
};

type DatabaseEnv = z.output<z.ZodObject<typeof DATABASE_ENV>>;

/** The database's settings as the config holds them. */
export interface DatabaseConfig {
  /** PostgreSQL server; PGlite in {@link DatabaseConfig.dataDir} when undefined. */
  databaseUrl: string | undefined;
  dataDir: string;
  database: {
    /** Connections of the PostgreSQL pool (`DATABASE_POOL_SIZE`). */
    poolSize: number;
    /** Longest a request's statement may run before PostgreSQL cancels it. */
    statementTimeoutMs: number;
    /**
     * A streaming standby (`DATABASE_REPLICA_URL`) read operations may run on once it has replayed
     * their tenant's last write; undefined: every statement runs on {@link DatabaseConfig.databaseUrl}.
     */
    replicaUrl: string | undefined;
    /** Replay lag of the standby past which every read runs on the primary (`DATABASE_REPLICA_MAX_LAG_MS`). */
    replicaMaxLagMs: number;
  };
  /** One tenant's share of the database (the bulkhead in front of the pool). */
  tenantShare: {
    /** Database connections one tenant's requests may hold at once (at most the pool size). */
    dbConcurrency: number;
    /** How long a request waits for its tenant's share before it is answered 429. */
    queueMs: number;
    /** Sustained rate of one tenant's large read responses (twice this may go at once). */
    responseBytesPerS: number;
  };
  /** Whether `serve`, `start` and `dispatch` apply pending migrations (else refuse to start on them). */
  migrateOnStart: boolean;
}

/**
 * The database's settings from its variables. A production server on the embedded database must
 * say where its data lives (`dataDirGiven`: `DATA_DIR` set, not defaulted), and a standby follows
 * a PostgreSQL primary.
 */
export function databaseConfig(e: DatabaseEnv, production: boolean, dataDirGiven: boolean): DatabaseConfig {
  if (production && !e.DATABASE_URL && !dataDirGiven) {
    throw invalid(
      'NODE_ENV=production needs DATABASE_URL (PostgreSQL), or DATA_DIR set explicitly for the embedded database',
    );
  }
  if (e.DATABASE_REPLICA_URL && !e.DATABASE_URL) {
    throw invalid('DATABASE_REPLICA_URL: needs DATABASE_URL (the primary the standby follows)');
  }
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    database: {
      poolSize: e.DATABASE_POOL_SIZE,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      replicaUrl: e.DATABASE_REPLICA_URL,
      replicaMaxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS,
    },
    tenantShare: {
      dbConcurrency: Math.min(e.TENANT_DB_CONCURRENCY, e.DATABASE_POOL_SIZE),
      queueMs: e.TENANT_DB_QUEUE_MS,
      responseBytesPerS: e.TENANT_RESPONSE_BYTES_PER_S,
    },
    migrateOnStart: e.MIGRATE_ON_START,
  };
}
