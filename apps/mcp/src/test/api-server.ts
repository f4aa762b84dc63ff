import {
  createKey,
  freePort,
  inheritedEnv,
  startServer,
  tempDir,
  uniqueTenant,
} from '@customer-api/test-server';

/** A real Customer API server started from its CLI for end-to-end tests. */
export interface ApiFixture {
  baseUrl: string;
  /** Read and write key of the test tenant. */
  apiKey: string;
  /** Read-only key of the same tenant. */
  readOnlyKey: string;
}

/**
 * Starts the real server: embedded PGlite in a temporary directory, or PostgreSQL when
 * `TEST_DATABASE_URL` is set. Keys are created first, because PGlite lets one process hold the
 * data directory at a time. Returns the fixture and a stop function.
 */
export async function startApiServer(): Promise<{ fixture: ApiFixture; stop: () => Promise<void> }> {
  const dataDir = await tempDir('customer-api-mcp-');
  const env: NodeJS.ProcessEnv = {
    ...inheritedEnv(),
    DATA_DIR: dataDir.path,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
  };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  const tenant = uniqueTenant('mcp-test');
  try {
    const apiKey = await createKey(env, tenant, 'read,write');
    const readOnlyKey = await createKey(env, tenant, 'read');
    // PGlite's cold start plus migrations takes tens of seconds on a loaded two-core machine.
    const server = await startServer({
      env: { ...env, HOST: '127.0.0.1', RATE_LIMIT_MAX: '100000' },
      port: await freePort(),
      capture: 'stderr',
      outputLimit: 4000,
      timeoutMs: 240_000,
    });
    const stop = async () => {
      await server.stop();
      await dataDir.remove();
    };
    return { fixture: { baseUrl: server.url, apiKey, readOnlyKey }, stop };
  } catch (error) {
    await dataDir.remove();
    throw error;
  }
}
