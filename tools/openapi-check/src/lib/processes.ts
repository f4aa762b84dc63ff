import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createKey,
  SERVER_CLI,
  serverEnv,
  spawnTracked,
  type TrackedProcess,
  tempDir,
  uniqueTenant,
  waitUntil,
  waitUntilReady,
} from '@customer-api/test-server';

export { freePort } from '@customer-api/test-server';

const require = createRequire(import.meta.url);

/** Prism's CLI entry, run with this Node. */
const PRISM_CLI = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');

/** The ceiling for a process to become ready: a loaded machine can take minutes. */
const READY_TIMEOUT_MS = 180_000;

/** A child process with its recent output and a stop that waits for its exit. */
export interface Running {
  url: string;
  output(): string;
  /** Resolves with the first output line that matches `pattern`, as soon as it is written. */
  line(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

function running(proc: TrackedProcess, url: string): Running {
  return {
    url,
    output: proc.output,
    line: proc.line,
    stop: async () => {
      await proc.stop();
    },
  };
}

/** The keys the traffic uses, all of one tenant. */
export interface Keys {
  /** read and write; its window is spent last, for the 429s. */
  owner: string;
  /** read only: every write is 403. */
  readOnly: string;
  /** write only: every read is 403. */
  writeOnly: string;
}

/** A real server started from its CLI, with its keys. */
export interface ApiServer extends Running {
  keys: Keys;
}

/**
 * Starts the real server (`dist/main.js serve`): PostgreSQL when `TEST_DATABASE_URL` is set, else
 * embedded PGlite in a temporary directory. `BASE_URL` is the address clients use (the validating
 * proxy), so the signed download links the server hands out lead through it too.
 */
export async function startServer(options: {
  baseUrl: string;
  port: number;
  env: Record<string, string>;
}): Promise<ApiServer> {
  const dataDir = await tempDir('openapi-check-');
  const env: NodeJS.ProcessEnv = { ...serverEnv(dataDir.path, 'test'), NODE_ENV: 'test' };
  const tenant = uniqueTenant('openapi-check');
  const key = (scopes: string) => createKey(env, tenant, scopes);
  const createKeys = async (): Promise<Keys> => {
    // PGlite lets one process hold its directory at a time: one key after another.
    if (!env.DATABASE_URL)
      return { owner: await key('read,write'), readOnly: await key('read'), writeOnly: await key('write') };
    const [owner, readOnly, writeOnly] = await Promise.all([key('read,write'), key('read'), key('write')]);
    return { owner, readOnly, writeOnly };
  };
  // On PostgreSQL the keys are made while the server starts; PGlite needs them made first.
  const early = env.DATABASE_URL ? undefined : await createKeys();
  const proc = spawnTracked({
    command: process.execPath,
    args: [SERVER_CLI, 'serve'],
    env: { ...env, ...options.env, PORT: String(options.port), HOST: '127.0.0.1', BASE_URL: options.baseUrl },
    outputLimit: 200_000,
  });
  const server = running(proc, `http://127.0.0.1:${options.port}`);
  const stop = async () => {
    await server.stop();
    await dataDir.remove();
  };
  try {
    const [keys] = await Promise.all([
      early ?? createKeys(),
      waitUntilReady(proc, `${server.url}/readyz`, { timeoutMs: READY_TIMEOUT_MS }),
    ]);
    return { ...server, stop, keys };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts `prism proxy --errors <document> <upstream>` on `port`: every request and response is
 * validated against the document, and a violation turns the answer into Prism's own error.
 */
export async function startPrism(document: string, upstream: string, port: number): Promise<Running> {
  const proc = spawnTracked({
    command: process.execPath,
    args: [PRISM_CLI, 'proxy', '--errors', '--host', '127.0.0.1', '--port', String(port), document, upstream],
    env: process.env,
    outputLimit: 200_000,
  });
  try {
    await waitUntil(proc, 'Prism listened', async () => proc.output().includes('Prism is listening'), {
      timeoutMs: READY_TIMEOUT_MS,
    });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return running(proc, `http://127.0.0.1:${port}`);
}
