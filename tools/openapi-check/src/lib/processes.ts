import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** The server's built CLI (`pnpm test` builds it first through the workspace dependency). */
const SERVER_CLI = join(dirname(require.resolve('@customer-api/server/package.json')), 'dist/main.js');
/** Prism's CLI entry, run with this Node. */
const PRISM_CLI = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist/index.js');

/** A free TCP port on loopback (bound once and released). */
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

/** A child process with its recent output and a stop that waits for its exit. */
export interface Running {
  url: string;
  output(): string;
  /** Resolves with the first output line that matches `pattern`, as soon as it is written. */
  line(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
}

function track(child: ChildProcess, url: string): Running & { exit(): string | undefined } {
  let output = '';
  let exit: string | undefined;
  const watchers: Array<{ pattern: RegExp; found: (line: string) => void }> = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-200_000);
    for (const line of text.split('\n')) {
      for (const watcher of watchers.filter((w) => w.pattern.test(line))) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.found(line);
      }
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = `code ${code} signal ${signal}`;
      resolve();
    });
  });
  return {
    url,
    output: () => output,
    line: (pattern) => new Promise((found) => watchers.push({ pattern, found })),
    exit: () => exit,
    stop: async () => {
      if (exit === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitFor(what: string, proc: ReturnType<typeof track>, ready: () => Promise<boolean>) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (proc.exit()) throw new Error(`${what} exited (${proc.exit()}):\n${proc.output()}`);
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await proc.stop();
  throw new Error(`${what} not ready in time:\n${proc.output()}`);
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
  const dataDir = await mkdtemp(join(tmpdir(), 'openapi-check-'));
  // vitest puts Vite's BASE_URL ("/") into the environment; the server would read it as its own.
  const { BASE_URL: _vite, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited, DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'test' };
  if (process.env.TEST_DATABASE_URL) env.DATABASE_URL = process.env.TEST_DATABASE_URL;
  const tenant = `openapi-check-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const key = async (scopes: string) => {
    const args = [SERVER_CLI, 'keys', 'create', '--tenant', tenant, '--scopes', scopes];
    const { stdout } = await run(process.execPath, args, { env });
    return (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
  };
  const createKeys = async (): Promise<Keys> => {
    // PGlite lets one process hold its directory at a time: one key after another.
    if (!env.DATABASE_URL)
      return { owner: await key('read,write'), readOnly: await key('read'), writeOnly: await key('write') };
    const [owner, readOnly, writeOnly] = await Promise.all([key('read,write'), key('read'), key('write')]);
    return { owner, readOnly, writeOnly };
  };
  // On PostgreSQL the keys are made while the server starts; PGlite needs them made first.
  const early = env.DATABASE_URL ? undefined : await createKeys();
  const child = spawn(process.execPath, [SERVER_CLI, 'serve'], {
    env: { ...env, ...options.env, PORT: String(options.port), HOST: '127.0.0.1', BASE_URL: options.baseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = track(child, `http://127.0.0.1:${options.port}`);
  const stop = async () => {
    await proc.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const [keys] = await Promise.all([
      early ?? createKeys(),
      waitFor('the API server', proc, async () => (await fetch(`${proc.url}/readyz`)).ok),
    ]);
    return { ...proc, stop, keys };
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
  const child = spawn(
    process.execPath,
    [PRISM_CLI, 'proxy', '--errors', '--host', '127.0.0.1', '--port', String(port), document, upstream],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const proc = track(child, `http://127.0.0.1:${port}`);
  await waitFor('Prism', proc, async () => proc.output().includes('Prism is listening'));
  return proc;
}
