import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** How long one program may run before the check gives up on it (every step takes seconds). */
export const STEP_TIMEOUT_MS = 120_000;

/**
 * Runs a program (the environment plus `env`, where `undefined` removes a variable); rejects with its output when it fails or outlives `timeoutMs` (it is then
 * killed), so the report shows why and CI never waits on a stuck step.
 */
export async function run(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = STEP_TIMEOUT_MS,
  env: Record<string, string | undefined> = {},
): Promise<string> {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    npm_config_update_notifier: 'false',
    ...env,
  };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd,
      maxBuffer: 32 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      env: merged,
    });
    return `${stdout}${stderr}`;
  } catch (err) {
    const {
      stdout = '',
      stderr = '',
      killed,
    } = err as { stdout?: string; stderr?: string; killed?: boolean };
    const why = killed ? `timed out after ${timeoutMs / 1000} s` : 'failed';
    throw new Error(`${command} ${args.join(' ')} ${why} in ${cwd}:\n${stdout}${stderr}`);
  }
}

/** This package's directory: pnpm links its dependencies into its node_modules. */
export const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The path of a dependency's bin script (run with this Node, not through a shell shim); found in
 * node_modules, since some packages' `exports` hide their package.json.
 */
export function binOf(pkg: string, bin: string): string {
  return join(packageDir, 'node_modules', pkg, bin);
}

/** Runs a dependency's bin script with the current Node. */
export function runBin(pkg: string, bin: string, args: string[], cwd: string): Promise<string> {
  return run(process.execPath, [binOf(pkg, bin), ...args], cwd);
}

/**
 * Runs pnpm: the one running this script when there is one (`pnpm test` sets `npm_execpath`),
 * else the version the root manifest's `packageManager` names, through npx, as the README does;
 * a global pnpm is never assumed.
 */
export function runPnpm(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<string> {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath))
    return run(process.execPath, [execPath, ...args], cwd, undefined, env);
  const root = join(packageDir, '..', '..');
  const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    packageManager: string;
  };
  return run('npx', ['--yes', packageManager, ...args], cwd, undefined, env);
}
