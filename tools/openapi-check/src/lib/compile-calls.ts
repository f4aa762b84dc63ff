import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A generated client's calls, compiled: the type errors (empty when none) and its `calls`. */
export interface CompiledCalls<Calls> {
  typeErrors: string;
  calls: Calls;
}

/**
 * Writes `calls.ts` (`source`), `tsconfig.json` and an ESM `package.json` into `dir` (which already
 * holds the generated client), compiles them with the workspace's `tsc` and `args`, and imports the
 * compiled `calls`. Type errors are returned, not thrown; `calls` then rejects.
 */
export async function compileCalls<Calls>(
  dir: string,
  tsconfig: object,
  source: string,
  args: readonly string[] = [],
): Promise<CompiledCalls<Calls>> {
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  await writeFile(join(dir, 'calls.ts'), source);
  const compiled = await run(process.execPath, [TSC, '-p', dir, ...args]).catch(
    (error: { stdout?: string; message: string }) => ({
      stdout: `${error.stdout ?? ''}${error.message}`,
      failed: true,
    }),
  );
  if ('failed' in compiled) {
    const notCompiled = () => Promise.reject(new Error('not compiled'));
    return { typeErrors: compiled.stdout, calls: notCompiled as Calls };
  }
  const module = (await import(pathToFileURL(join(dir, 'dist/calls.js')).href)) as { calls: Calls };
  return { typeErrors: '', calls: module.calls };
}
