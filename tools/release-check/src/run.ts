import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a program; rejects with its output when it fails, so the report shows why. */
export async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd,
      maxBuffer: 32 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', npm_config_update_notifier: 'false' },
    });
    return `${stdout}${stderr}`;
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}${stderr}`);
  }
}

/** This package's directory: pnpm links its dependencies into its node_modules. */
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

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
