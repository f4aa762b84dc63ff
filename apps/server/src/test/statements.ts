import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { productionSources } from './module-borders.js';

const srcRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every named statement of the server's modules, by name. The registry is per module instance and
 * the files of a worker share modules, so the modules are loaded afresh: statements other test
 * files define stay out.
 */
export async function serverStatements(): Promise<ReadonlyMap<string, string>> {
  const defining = [...(await productionSources(srcRoot))]
    .filter(([, text]) => /\bstatement\(/.test(text))
    .map(([file]) => file);
  vi.resetModules();
  const { definedStatements } = await import('../db/sql.js');
  for (const file of defining) await import(join(srcRoot, file));
  return definedStatements();
}
