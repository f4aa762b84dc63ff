import {
  createKey,
  freePort,
  migratedDataDir,
  serverEnv,
  startServer as startCli,
} from '@customer-api/test-server';

/** A running server: its address, a read+write key of a fresh tenant, and how to stop it. */
export interface RunningServer {
  baseUrl: string;
  apiKey: string;
  /** The environment the server runs with (for CLI calls against the same data once stopped). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * Starts `customer-api serve` on embedded PGlite in a new temporary data directory (a copy of a
 * migrated one: initdb and migrations are not what the examples show), after creating
 * a tenant and key with `customer-api keys create` (PGlite admits one process at a time).
 * `env` adds server configuration, e.g. `WEBHOOKS_ALLOW_INSECURE`.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = await migratedDataDir('customer-api-example-');
  const port = await freePort();
  const serverEnvironment = {
    ...serverEnv(dataDir.path, 'embedded'),
    HOST: '127.0.0.1',
    PORT: String(port),
    ...env,
  };
  const apiKey = await createKey(serverEnvironment, 'example');
  // Generous: in CI every package's tests start at once on two cores, and PGlite starts slowly
  // then; startServer waits 240 s for /readyz.
  const server = await startCli({
    env: serverEnvironment,
    port,
    capture: 'stderr',
    outputLimit: 4000,
    cleanup: dataDir.remove,
  });
  const stop = async () => {
    await server.stop();
  };
  return { baseUrl: server.url, apiKey, env: serverEnvironment, stop };
}
