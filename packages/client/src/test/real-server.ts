import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The server's built CLI; turbo builds it before this package's tests (see turbo.json here). */
const SERVER_MAIN = fileURLToPath(new URL('../../../../apps/server/dist/main.js', import.meta.url));

/** A real Customer API server in a child process, with its demo tenant's key. */
export interface RealServer {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * Runs `customer-api start` (migrations, demo data and a key on the first run) on a fresh
 * PostgreSQL database when `TEST_DATABASE_URL` is set, else on embedded PGlite in a temporary
 * directory. Resolves once the server listens and printed the key.
 */
export async function startRealServer(): Promise<RealServer> {
  if (!existsSync(SERVER_MAIN))
    throw new Error(`Build @customer-api/server first: ${SERVER_MAIN} is missing`);
  const database = await freshDatabase();
  const child = spawn(process.execPath, [SERVER_MAIN, 'start'], {
    // Not the test's environment: vitest sets BASE_URL (Vite's), which the server would read.
    env: {
      PATH: process.env.PATH ?? '',
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await database.drop();
  };
  try {
    const { url, apiKey } = await readBanner(child);
    return { url, apiKey, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Reads stdout until both the listening address (pino's line) and the demo key are known. */
async function readBanner(child: ChildProcess): Promise<{ url: string; apiKey: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`The server exited (${code}) before listening:\n${stderr}`);
  });
  const found = (async () => {
    let url: string | undefined;
    let apiKey: string | undefined;
    for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
      url ??= /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      apiKey ??= /^\s*(cak_[A-Za-z0-9_-]+)\s*$/.exec(line)?.[1];
      if (url && apiKey) return { url, apiKey };
    }
    throw new Error(`The server's output ended before it printed its address and key:\n${stderr}`);
  })();
  return Promise.race([found, exited]);
}

async function freshDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'customer-api-runtime-'));
    return { env: { DATA_DIR: dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `client_runtime_${process.pid}_${Date.now()}`;
  await withAdmin(adminUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: () => withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

async function withAdmin(url: string, run: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await run(admin);
  } finally {
    await admin.end();
  }
}
