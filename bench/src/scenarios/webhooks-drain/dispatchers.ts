// The `customer-api dispatch` processes of a scenario 4 round: started with the round's
// environment, what they write kept (each distinct line, counted) for a failed round's error, a
// dispatcher that exits unasked failing the wait under way, and the CPU each process has used.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { SERVER_CLI, stopProcess } from '@customer-api/test-server';
import { clusterCpuMicros } from '../../lib/clusters.js';
import { cpuMicros } from '../../lib/proc.js';
import { arrivals, onNextArrival, wakeWaiters } from './receiver.js';

/** A dispatcher process, marked once the round stops it. */
export type Dispatcher = ChildProcessByStdio<null, Readable, Readable> & { stopping?: boolean };

/** PostgreSQL instances whose CPU per delivery the drains report, by name: their postmasters' pids. */
export const POSTMASTERS: [string, number][] = Object.entries(
  JSON.parse(process.env.POSTMASTERS ?? '{}') as Record<string, number>,
);

/** Why a dispatcher stopped before it was stopped. */
let dispatcherFailure: Error | undefined;
/** Each distinct line the dispatchers wrote (a log entry's message and its error's), and how often. */
const dispatcherLines = new Map<string, number>();

/** A log entry's message and its error's, as far as they are there. */
function entryText(text: string): string {
  try {
    const entry: unknown = JSON.parse(text);
    // As `entry.msg` reads them: null throws (the line is kept), other non-objects have no message.
    if (entry === null) return text;
    if (typeof entry !== 'object') return '';
    const msg = 'msg' in entry ? entry.msg : undefined;
    const err = 'err' in entry ? entry.err : undefined;
    const errMessage = err && typeof err === 'object' && 'message' in err ? err.message : undefined;
    return [msg, errMessage].filter(Boolean).join(': ');
  } catch {
    return text;
  }
}

function noteDispatcherLine(line: string): void {
  let text = line.trim();
  if (!text) return;
  text = entryText(text).slice(0, 300);
  if (dispatcherLines.size < 20 || dispatcherLines.has(text))
    dispatcherLines.set(text, (dispatcherLines.get(text) ?? 0) + 1);
}

/** Calls {@link noteDispatcherLine} with each whole line of `stream`. */
function readLines(stream: Readable): void {
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) noteDispatcherLine(line);
  });
  stream.on('end', () => noteDispatcherLine(partial));
}

const said = () =>
  dispatcherLines.size
    ? `; the dispatchers wrote: ${[...dispatcherLines].map(([text, n]) => `"${text}" × ${n}`).join('; ')}`
    : '';

/**
 * Resolves once `count` deliveries have arrived; rejects when a dispatcher fails first, or after
 * `ms` (DELIVERY_TIMEOUT_MS, default 120 s).
 */
export const until = (
  count: number,
  ms = Number(process.env.DELIVERY_TIMEOUT_MS ?? 120_000),
): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`only ${arrivals.received} of ${count} deliveries arrived${said()}`)),
      ms,
    );
    const check = () => {
      if (dispatcherFailure) {
        clearTimeout(timer);
        return reject(dispatcherFailure);
      }
      if (arrivals.received < count) return onNextArrival(check);
      clearTimeout(timer);
      resolve();
    };
    check();
  });

function dispatcherArgs(): string[] {
  const dir = process.env.BENCH_WEBHOOKS_PROFILE;
  const extra = process.env.BENCH_WEBHOOKS_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), SERVER_CLI, 'dispatch'];
}

/** Starts `n` dispatchers with the round's environment `env` and `extraEnv`. */
export function startDispatchers(
  n: number,
  env: NodeJS.ProcessEnv,
  extraEnv: Record<string, string> = {},
): Dispatcher[] {
  return Array.from({ length: n }, () => {
    const logLevel = process.env.DISPATCH_LOG_LEVEL ? { LOG_LEVEL: process.env.DISPATCH_LOG_LEVEL } : {};
    const child: Dispatcher = spawn(process.execPath, dispatcherArgs(), {
      env: { ...process.env, ...env, ...logLevel, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    readLines(child.stdout);
    readLines(child.stderr);
    child.once('exit', (code, signal) => {
      if (child.stopping) return;
      dispatcherFailure = new Error(`customer-api dispatch exited (${code ?? signal})${said()}`);
      wakeWaiters();
    });
    return child;
  });
}

/** Stops the dispatchers (SIGTERM, then SIGKILL). */
export async function stopDispatchers(children: Dispatcher[]): Promise<void> {
  for (const c of children) c.stopping = true;
  await Promise.all(children.map((c) => stopProcess(c)));
}

/** CPU microseconds a process has used ({@link cpuMicros}); 0 once it is gone. */
function cpuMicrosOr0(pid: number | string | undefined): number {
  if (pid === undefined) return 0;
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
}

/** CPU µs so far by process: the dispatchers, PostgreSQL, this process, and each of {@link POSTMASTERS}. */
export type CpuReading = Record<string, number> & { dispatcher: number; postgres: number; receiver: number };

/** CPU microseconds used so far by the dispatchers, by every PostgreSQL process, and by this process. */
export function cpuNow(children: Dispatcher[]): CpuReading {
  let postgres = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) postgres += cpuMicrosOr0(pid);
    } catch {}
  }
  const own = process.cpuUsage();
  return {
    dispatcher: children.reduce((sum, c) => sum + cpuMicrosOr0(c.pid), 0),
    postgres,
    receiver: own.user + own.system,
    ...Object.fromEntries(POSTMASTERS.map(([name, pid]) => [name, clusterCpuMicros(pid)])),
  };
}
