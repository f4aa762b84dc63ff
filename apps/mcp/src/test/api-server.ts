import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** A real Customer API server started from its CLI for end-to-end tests. */
export interface ApiFixture {
  baseUrl: string;
  /** Read and write key of the test tenant. */
  apiKey: string;
  /** Read-only key of the same tenant. */
  readOnlyKey: string;
}

const run = promisify(execFile);

/** The server's CLI (`customer-api`), resolved through the workspace dependency. */
export const SERVER_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@customer-api/server/package.json')),
  'dist/main.js',
);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function createKey(env: NodeJS.ProcessEnv, tenant: string, scopes: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [SERVER_CLI, 'keys', 'create', '--tenant', tenant, '--scopes', scopes],
    {
      env,
    },
  );
  return (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
}

async function waitUntilReady(baseUrl: string, exited: () => string | undefined): Promise<void> {
  // PGlite's cold start plus migrations takes tens of seconds on a loaded two-core machine.
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    const failure = exited();
    if (failure) throw new Error(`The API server exited: ${failure}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`The API server at ${baseUrl} did not become ready`);
}

/**
 * Starts the real server: embedded PGlite in a temporary directory, or PostgreSQL when
 * `TEST_DATABASE_URL` is set. Keys are created first, because PGlite lets one process hold the
 * data directory at a time. Returns the fixture and a stop function.
 */
export async function startApiServer(): Promise<{ fixture: ApiFixture; stop: () => Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'customer-api-mcp-'));
  // vitest puts Vite's BASE_URL ("/") into the environment; the server would read it as its own.
  const { BASE_URL: _vite, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'test' };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  const tenant = `mcp-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const apiKey = await createKey(env, tenant, 'read,write');
  const readOnlyKey = await createKey(env, tenant, 'read');
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_CLI, 'serve'], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_MAX: '100000' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let exit: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    exit = `code ${code} signal ${signal}: ${stderr}`;
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (exit === undefined) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(baseUrl, () => exit);
  } catch (error) {
    await stop();
    throw error;
  }
  return { fixture: { baseUrl, apiKey, readOnlyKey }, stop };
}
