import {
  createKey,
  freePort,
  serverEnv,
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
  const env = { ...serverEnv(dataDir.path, 'test'), NODE_ENV: 'test' };
  const tenant = uniqueTenant('mcp-test');
  const apiKey = await createKey(env, tenant, 'read,write');
  const readOnlyKey = await createKey(env, tenant, 'read');
  // PGlite's cold start plus migrations takes tens of seconds on a loaded two-core machine: the
  // default 240 s to become ready.
  const server = await startServer({
    env: { ...env, HOST: '127.0.0.1', RATE_LIMIT_MAX: '100000' },
    port: await freePort(),
    capture: 'stderr',
    outputLimit: 4000,
    cleanup: dataDir.remove,
  });
  return {
    fixture: { baseUrl: server.url, apiKey, readOnlyKey },
    stop: async () => {
      await server.stop();
    },
  };
}
