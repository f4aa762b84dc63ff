import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';

const srcRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every named statement of the server's modules, by name. The registry is per module instance and
 * the files of a worker share modules, so the modules are loaded afresh: statements other test
 * files define stay out.
 */
export async function serverStatements(): Promise<ReadonlyMap<string, string>> {
  const files = (await readdir(srcRoot, { recursive: true })).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('test/'),
  );
  const defining: string[] = [];
  for (const file of files)
    if (/\bstatement\(/.test(await readFile(join(srcRoot, file), 'utf8'))) defining.push(file);
  vi.resetModules();
  const { definedStatements } = await import('../db/sql.js');
  for (const file of defining) await import(join(srcRoot, file));
  return definedStatements();
}
