import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  freePort,
  SERVER_CLI,
  spawnTracked,
  startServer,
  type TrackedProcess,
} from '@customer-api/test-server';

/**
 * `pgliteDataDir(prefix)`: a temporary PGlite data directory, already migrated (a copy of one
 * template made per server build). The suite tests crashes, load and shutdowns, not PGlite's
 * initdb, which would cost the first CLI command on a fresh directory about 3.5 s of CPU.
 */
export {
  createKey,
  freePort,
  migratedDataDir as pgliteDataDir,
  runCli,
  SERVER_CLI as SERVER_MAIN,
  tcpAnswers,
} from '@customer-api/test-server';

/** The suite's key of stored secrets: every process of a run (server, dispatcher, CLI) shares it. */
const SECRETS_KEY = randomBytes(32).toString('base64');

/** Environment every server process of the suite gets (no limits in the way of load). */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  // One tenant's load here is the whole load: its database share is the whole pool (the share
  // itself is tested in noisy-neighbour/).
  return {
    ...env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    TENANT_DB_CONCURRENCY: '1000',
    SECRETS_ENCRYPTION_KEYS: SECRETS_KEY,
    ...extra,
  };
}

/** A server (or dispatcher) running as a separate process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<number | string>;
  /** SIGTERM and wait. */
  stop(): Promise<number | string>;
}

/**
 * Starts the built CLI's `<command>` (`customer-api serve` or `dispatch`) on `env.PORT` or a free
 * port; for `serve` waits until `/healthz` answers (60 s at most, then SIGKILL).
 */
export async function startProcess(
  env: Record<string, string>,
  command: 'serve' | 'dispatch' = 'serve',
): Promise<ServerProcess> {
  const port = Number(env.PORT ?? (await freePort()));
  const proc: TrackedProcess =
    command === 'serve'
      ? await startServer({ env, port, readyPath: '/healthz', timeoutMs: 60_000, killAfterMs: 0 })
      : spawnTracked({
          command: process.execPath,
          args: [SERVER_CLI, command],
          env: { ...env, PORT: String(port) },
        });
  return {
    url: `http://127.0.0.1:${port}`,
    child: proc.child,
    output: proc.output,
    exited: proc.exited,
    kill9: proc.kill,
    stop: () => proc.stop(),
  };
}
