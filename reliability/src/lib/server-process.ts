import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** The built CLI of the server (`apps/server/dist/main.js`); `pnpm test` builds it first. */
export const SERVER_MAIN = join(
  dirname(createRequire(import.meta.url).resolve('@customer-api/server/package.json')),
  'dist',
  'main.js',
);

/** A free TCP port on loopback (bound once and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Environment every server process of the suite gets (no limits in the way of load). */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  // One tenant's load here is the whole load: its database share is the whole pool (the share
  // itself is tested in noisy-neighbour.test.ts).
  return {
    ...env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    TENANT_DB_CONCURRENCY: '1000',
    ...extra,
  };
}

/** Runs a CLI command to completion; rejects on a non-zero exit. */
export async function runCli(env: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [SERVER_MAIN, ...args], { env });
  return stdout;
}

/** Creates a read+write key for a tenant through the CLI (`keys create`). */
export async function createKey(env: Record<string, string>, tenant: string): Promise<string> {
  const line = JSON.parse(await runCli(env, ['keys', 'create', '--tenant', tenant])) as { apiKey: string };
  return line.apiKey;
}

/** A server (or dispatcher) running as a separate process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<number | string>;
  /** SIGTERM and wait. */
  stop(): Promise<number | string>;
}

/** Starts `node dist/main.js <command>`; for `serve` waits until `/healthz` answers. */
export async function startProcess(
  env: Record<string, string>,
  command: 'serve' | 'dispatch' = 'serve',
): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [SERVER_MAIN, command], {
    env: { ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const proc: ServerProcess = {
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    exited,
    kill9: async () => {
      child.kill('SIGKILL');
      return exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
  if (command === 'serve') await waitHealthy(proc);
  return proc;
}

async function waitHealthy(proc: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let ended: number | string | undefined;
  void proc.exited.then((code) => {
    ended = code;
  });
  while (Date.now() < deadline) {
    if (ended !== undefined) throw new Error(`server exited (${ended}) before listening:\n${proc.output()}`);
    try {
      const res = await fetch(`${proc.url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.child.kill('SIGKILL');
  throw new Error(`server not healthy after ${timeoutMs} ms:\n${proc.output()}`);
}
