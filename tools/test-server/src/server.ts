import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type StartOptions, startProcess, type TrackedProcess } from './process.js';

/**
 * The workspace server's package.json. Found by its place in the repository, not as a
 * dependency: the server's tests use this package, and the client's tests (a dependency of the
 * server's) do too, so a dependency on the server would make a cycle. Same depth from src/ and dist/.
 */
const SERVER_PACKAGE = fileURLToPath(new URL('../../../apps/server/package.json', import.meta.url));

/** The built server CLI (`customer-api`, the package's bin): build `@customer-api/server` first. */
export const SERVER_CLI: string = join(
  dirname(SERVER_PACKAGE),
  (JSON.parse(readFileSync(SERVER_PACKAGE, 'utf8')) as { bin: Record<string, string> }).bin['customer-api'] ??
    'dist/main.js',
);

/**
 * `process.env` without Vite's `BASE_URL` ("/", which vitest sets and the server would read as its
 * public address) and without the names in `drop`.
 */
export function inheritedEnv(drop: string[] = []): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['BASE_URL', ...drop]) delete env[name];
  return env;
}

/**
 * The environment of a server under test on PGlite in `dataDir`, logging warnings and errors:
 * {@link inheritedEnv} plus `DATA_DIR` and `LOG_LEVEL`. With `database: 'test'`, PostgreSQL at
 * `TEST_DATABASE_URL` when that is set (an inherited `DATABASE_URL` otherwise stays); with
 * `'embedded'`, always PGlite (`DATABASE_URL` removed).
 */
export function serverEnv(dataDir: string, database: 'test' | 'embedded'): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...inheritedEnv(database === 'embedded' ? ['DATABASE_URL'] : []),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  if (database === 'test' && process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  return env;
}

/** A temporary directory for the server's embedded PGlite data (`DATA_DIR`). */
export interface TempDir {
  path: string;
  /** Deletes the directory and everything in it. */
  remove(): Promise<void>;
}

/** Creates a temporary directory named `<prefix>XXXXXX` in the OS's temp folder. */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A tenant name no other run uses: `<prefix>-<time>-<random>`. */
export function uniqueTenant(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Where the CLI runs: another build of it (`cli`) and its working directory. */
export interface CliOptions {
  /** The CLI's main file (default {@link SERVER_CLI}). */
  cli?: string;
  cwd?: string;
}

/** Runs a server CLI command to completion with this Node and returns its stdout; rejects on a non-zero exit. */
export async function runCli(
  env: NodeJS.ProcessEnv,
  args: string[],
  options: CliOptions = {},
): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [options.cli ?? SERVER_CLI, ...args], {
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return stdout;
}

/**
 * Creates an API key with `keys create` (creating the tenant when new) and returns it. `scopes`
 * is the CLI's comma-separated list; omitted, the CLI's default (read and write) applies.
 * With embedded PGlite, run it while no server holds the data directory.
 */
export async function createKey(
  env: NodeJS.ProcessEnv,
  tenant: string,
  scopes?: string,
  options: CliOptions = {},
): Promise<string> {
  const args = ['keys', 'create', '--tenant', tenant, ...(scopes ? ['--scopes', scopes] : [])];
  const stdout = await runCli(env, args, options);
  const line = stdout
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text.startsWith('{'));
  if (!line) throw new Error(`keys create printed no key:\n${stdout}`);
  return (JSON.parse(line) as { apiKey: string }).apiKey;
}

/** How to start the server CLI; everything of {@link StartOptions} but what is derived here. */
export interface StartServerOptions
  extends Omit<StartOptions, 'command' | 'args' | 'readyUrl' | 'timeoutMs'>,
    CliOptions {
  /** `PORT` of the server; its URL is on 127.0.0.1 (set `HOST` in `env` to bind only there). */
  port: number;
  /** The CLI command (default `serve`). */
  command?: 'serve' | 'start';
  /** The path polled until it answers 2xx (default `/readyz`: migrated and connected). */
  readyPath?: string;
  /** Give up waiting after this long (default 240 s: PGlite's cold start on a loaded two-core machine). */
  timeoutMs?: number;
  /** Runs once the server has exited after `stop()` or a failed start, e.g. removing its data directory. */
  cleanup?: () => Promise<void>;
}

/** A server CLI process that has become ready, with its base URL. */
export interface ServerProcess extends TrackedProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
}

/**
 * Starts the built server CLI (`serve` by default) with this Node on `port` and waits until
 * `readyPath` answers; a server that exits or stays unready is stopped and the error carries its
 * output (and `cleanup` runs). Keys are for the caller to create first ({@link createKey}) when PGlite is used.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${options.port}`;
  const cleanup = options.cleanup ?? (async () => {});
  const proc = await startProcess({
    ...options,
    command: process.execPath,
    args: [options.cli ?? SERVER_CLI, options.command ?? 'serve'],
    env: { ...options.env, PORT: String(options.port) },
    readyUrl: `${url}${options.readyPath ?? '/readyz'}`,
    timeoutMs: options.timeoutMs ?? 240_000,
  }).catch(async (error: unknown) => {
    await cleanup();
    throw error;
  });
  const stop = async (killAfterMs?: number) => {
    const status = await proc.stop(killAfterMs);
    await cleanup();
    return status;
  };
  return { ...proc, stop, url };
}
