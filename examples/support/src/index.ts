import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The server's built CLI (`customer-api`), found through the workspace dependency. */
export const SERVER_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@customer-api/server/package.json')),
  'dist/main.js',
);

/** A running server: its address, a read+write key of a fresh tenant, and how to stop it. */
export interface RunningServer {
  baseUrl: string;
  apiKey: string;
  /** The environment the server runs with (for CLI calls against the same data once stopped). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** A free loopback port (the server prints its configured port, so it cannot listen on 0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitUntilReady(baseUrl: string, child: ChildProcess, stderr: () => string): Promise<void> {
  // Generous: in CI every package's tests start at once on two cores, and PGlite starts slowly then.
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${stderr()}`);
    const ready = await fetch(`${baseUrl}/readyz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server at ${baseUrl} did not become ready: ${stderr()}`);
}

/**
 * Starts `customer-api serve` on embedded PGlite in a new temporary data directory, after creating
 * a tenant and key with `customer-api keys create` (PGlite admits one process at a time).
 * `env` adds server configuration, e.g. `WEBHOOKS_ALLOW_INSECURE`.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'customer-api-example-'));
  // vitest sets Vite's BASE_URL ("/"); the server would take it for its own public address.
  const { BASE_URL: _vite, DATABASE_URL: _db, ...inherited } = process.env;
  const port = await freePort();
  const serverEnv: NodeJS.ProcessEnv = {
    ...inherited,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    ...env,
  };
  const { stdout } = await run(process.execPath, [SERVER_CLI, 'keys', 'create', '--tenant', 'example'], {
    env: serverEnv,
  });
  const { apiKey } = JSON.parse(stdout) as { apiKey: string };
  const child = spawn(process.execPath, [SERVER_CLI, 'serve'], {
    env: serverEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(baseUrl, child, () => stderr);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, apiKey, env: serverEnv, stop };
}
