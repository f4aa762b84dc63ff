import type { Config } from '../config.js';
import { NodePostgresDatabase } from '../db/adapters/node-postgres.js';
import { type Database, openDatabase } from '../db/database.js';

/**
 * Opens the database of a long-running command (`serve`, `dispatch`): the configured pool size
 * and statement timeout, which one-shot commands leave out.
 */
export function openServingDatabase(config: Config): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.database.poolSize,
    statementTimeoutMs: config.database.statementTimeoutMs,
  });
}

/**
 * Opens the standby of `DATABASE_REPLICA_URL`, when set. Its connections are opened on demand and
 * give up quickly: reads go to the primary while it cannot be reached.
 */
export function openReplicaDatabase(config: Config): NodePostgresDatabase | undefined {
  const url = config.database.replicaUrl;
  if (!url) return undefined;
  return new NodePostgresDatabase({
    url,
    poolSize: config.database.poolSize,
    statementTimeoutMs: config.database.statementTimeoutMs,
    connectTimeoutMs: 1000,
  });
}

/** What the signal handler logs through: pino's and Fastify's loggers both fit. */
export interface ShutdownLog {
  info(details: { signal: string }, message: string): void;
  error(details: { graceMs: number }, message: string): void;
}

/**
 * Waits for SIGTERM or SIGINT, then runs `stop` once (a second signal is ignored) and resolves
 * with the exit code: 0 when `stop` settles, 1 when it fails. A `stop` that takes longer than
 * `graceMs` exits the process with 1, saying so. Shared by `serve` and `dispatch`.
 */
export function exitCodeOnSignal(options: {
  log: ShutdownLog;
  message: string;
  graceMs: number;
  stop: () => Promise<unknown>;
}): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) return;
      stopping = true;
      options.log.info({ signal }, options.message);
      setTimeout(() => {
        // What did not finish (a delivery in flight, a long request) is what the operator looks for next.
        options.log.error(
          { graceMs: options.graceMs },
          'shutdown grace (SHUTDOWN_GRACE_MS) elapsed with work unfinished; exiting with 1',
        );
        process.exit(1);
      }, options.graceMs).unref();
      options.stop().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
  });
}
