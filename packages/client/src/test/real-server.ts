import { existsSync } from 'node:fs';
import { SERVER_CLI, spawnTracked, type TrackedProcess, tempDir } from '@customer-api/test-server';
import pg from 'pg';

/** A real Customer API server in a child process, with its demo tenant's key. */
export interface RealServer {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

/**
 * Runs `customer-api start` (migrations, demo data and a key on the first run) on a fresh
 * PostgreSQL database when `TEST_DATABASE_URL` is set, else on embedded PGlite in a temporary
 * directory. Resolves once the server listens and printed the key. `settings` adds to the server's
 * environment (e.g. `CORS_ALLOWED_ORIGINS`).
 */
export async function startRealServer(settings: Record<string, string> = {}): Promise<RealServer> {
  // turbo builds the server before this package's tests (see turbo.json here).
  if (!existsSync(SERVER_CLI)) throw new Error(`Build @customer-api/server first: ${SERVER_CLI} is missing`);
  const database = await freshDatabase();
  const server = spawnTracked({
    command: process.execPath,
    args: [SERVER_CLI, 'start'],
    // Not the test's environment: vitest sets BASE_URL (Vite's), which the server would read.
    env: {
      PATH: process.env.PATH ?? '',
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      ...settings,
    },
    outputLimit: 4000,
  });
  const stop = async () => {
    await server.stop();
    await database.drop();
  };
  try {
    const { url, apiKey } = await readBanner(server);
    return { url, apiKey, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the output holds both the listening address (pino's line) and the demo key. */
async function readBanner(server: TrackedProcess): Promise<{ url: string; apiKey: string }> {
  const url = server.line(/listening at http:\/\/127\.0\.0\.1:\d+/);
  const apiKey = server.line(/^\s*cak_[A-Za-z0-9_-]+\s*$/);
  const exited = server.exited.then((status) => {
    throw new Error(`The server exited (${status}) before listening:\n${server.output()}`);
  });
  const found = Promise.all([url, apiKey]).then(([urlLine, keyLine]) => ({
    url: /(http:\/\/127\.0\.0\.1:\d+)/.exec(urlLine)?.[1] ?? '',
    apiKey: keyLine.trim(),
  }));
  return Promise.race([found, exited]);
}

async function freshDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dataDir = await tempDir('customer-api-runtime-');
    return { env: { DATA_DIR: dataDir.path }, drop: dataDir.remove };
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
