import { type ChildProcess, spawn } from 'node:child_process';

/** How a process ended: its exit code, else the signal's name. */
export type ExitStatus = number | string;

/** What to run and what of its output to keep. */
export interface SpawnOptions {
  command: string;
  args: string[];
  /** The whole environment of the child (nothing is inherited implicitly). */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Which output streams are read and kept (default both; an ignored stdout is never read). */
  capture?: 'stdout+stderr' | 'stderr';
  /** Characters of output kept, the most recent (default: all of it). */
  outputLimit?: number;
}

/** A child process with its recent output, its end, and ways to wait for lines or stop it. */
export interface TrackedProcess {
  child: ChildProcess;
  /** The output kept so far. */
  output(): string;
  /** Resolves with the exit status when the process ends. */
  exited: Promise<ExitStatus>;
  /** The exit status once the process has ended, else undefined. */
  exitStatus(): ExitStatus | undefined;
  /** Resolves with the first complete output line matching `pattern` written from now on. */
  line(pattern: RegExp): Promise<string>;
  /** SIGTERM, then SIGKILL after `killAfterMs` (none when omitted); resolves with the exit status. */
  stop(killAfterMs?: number): Promise<ExitStatus>;
  /** SIGKILL: no shutdown code runs. Resolves with the exit status. */
  kill(): Promise<ExitStatus>;
}

/** Spawns a process and keeps its output (see {@link SpawnOptions}). */
export function spawnTracked(options: SpawnOptions): TrackedProcess {
  const capture = options.capture ?? 'stdout+stderr';
  const child = spawn(options.command, options.args, {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', capture === 'stderr' ? 'ignore' : 'pipe', 'pipe'],
  });
  let output = '';
  let status: ExitStatus | undefined;
  const watchers: Array<{ pattern: RegExp; found: (line: string) => void }> = [];
  // One reader per stream: a line can arrive in two chunks, and the streams interleave.
  const reader = () => {
    let partial = '';
    return (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      if (options.outputLimit !== undefined) output = output.slice(-options.outputLimit);
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        for (const watcher of watchers.filter((w) => w.pattern.test(line))) {
          watchers.splice(watchers.indexOf(watcher), 1);
          watcher.found(line);
        }
      }
    };
  };
  child.stdout?.on('data', reader());
  child.stderr?.on('data', reader());
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      status = code ?? signal ?? 'unknown';
      resolve(status);
    });
  });
  return {
    child,
    output: () => output,
    exited,
    exitStatus: () => status,
    line: (pattern) => new Promise((found) => watchers.push({ pattern, found })),
    stop: (killAfterMs) => stopProcess(child, killAfterMs),
    kill: async () => {
      if (status === undefined) child.kill('SIGKILL');
      return exited;
    },
  };
}

/**
 * Stops a child process: SIGTERM, then SIGKILL once `killAfterMs` have passed without an exit
 * (no SIGKILL when omitted). Resolves with the exit status; at once for a process that has ended.
 */
export async function stopProcess(child: ChildProcess, killAfterMs?: number): Promise<ExitStatus> {
  if (child.exitCode !== null) return child.exitCode;
  if (child.signalCode !== null) return child.signalCode;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  child.kill('SIGTERM');
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const status = await exited;
  clearTimeout(timer);
  return status;
}

/** How long to wait for readiness and how often to ask. */
export interface ReadyOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between two requests (default 100 ms). */
  intervalMs?: number;
}

/**
 * Asks `ready` every `intervalMs` until it resolves true. Rejects with the process's output when
 * the process exits first or `timeoutMs` pass (the process is left running: the caller stops it).
 * A `ready` that rejects counts as not ready yet.
 */
export async function waitUntil(
  proc: TrackedProcess,
  what: string,
  ready: () => Promise<boolean>,
  options: ReadyOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    const status = proc.exitStatus();
    if (status !== undefined)
      throw new Error(`the process exited (${status}) before ${what}:\n${proc.output()}`);
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(`not ${what} within ${options.timeoutMs} ms:\n${proc.output()}`);
}

/** Polls `url` until it answers 2xx (see {@link waitUntil}). */
export async function waitUntilReady(
  proc: TrackedProcess,
  url: string,
  options: ReadyOptions,
): Promise<void> {
  const answers = async () => {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.ok;
  };
  await waitUntil(proc, `${url} answered`, answers, options);
}

/** A process to start and the URL that answers 2xx once it is ready. */
export interface StartOptions extends SpawnOptions, ReadyOptions {
  readyUrl: string;
  /** On a failed start the process is stopped with this SIGKILL bound (see {@link stopProcess}). */
  killAfterMs?: number;
}

/** Spawns a process and waits until `readyUrl` answers; a process that fails to start is stopped. */
export async function startProcess(options: StartOptions): Promise<TrackedProcess> {
  const proc = spawnTracked(options);
  try {
    await waitUntilReady(proc, options.readyUrl, options);
  } catch (error) {
    await proc.stop(options.killAfterMs);
    throw error;
  }
  return proc;
}
