import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';

/**
 * The module a source file belongs to: `modules/<name>` for a file under `modules/`, else its
 * top-level folder (`delivery`, `http`, `lib`, …), or the file itself at the root.
 */
export function moduleOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts.length > 1 ? (parts[0] as string) : path;
}

/** Files allowed to import another module's repo, each with the reason. */
export const BORDER_EXCEPTIONS: Readonly<Record<string, string>> = {
  'internals.ts':
    "the benchmarks' window onto request-path pieces (`@customer-api/server/internals`), not used by the server",
};

const IMPORT = /(?:from|import\()\s*'(\.[^']+)'/g;

/**
 * Every import of a repo (`*.repo.ts`) from a file of another module, as `file -> repo` (a module's
 * repo is read by its own module only; other modules go through its service), and every import of
 * a test helper (`src/test/`, their one home, left out of the build). `files` maps production
 * paths relative to `src/` to their text.
 */
export function borderCrossings(files: ReadonlyMap<string, string>): string[] {
  const crossings: string[] = [];
  for (const [path, text] of files) {
    if (path in BORDER_EXCEPTIONS) continue;
    for (const match of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(path), match[1] as string)).replace(/\.js$/, '.ts');
      if (target.startsWith('test/')) crossings.push(`${path} -> ${target} (a test helper)`);
      else if (target.endsWith('.repo.ts') && moduleOf(target) !== moduleOf(path)) {
        crossings.push(`${path} -> ${target}`);
      }
    }
  }
  return crossings.sort();
}

/** The server's production sources (tests and test helpers left out), by path relative to `src/`. */
export async function productionSources(srcRoot: string): Promise<Map<string, string>> {
  const files = (await readdir(srcRoot, { recursive: true })).filter(
    (file) =>
      file.endsWith('.ts') &&
      !file.endsWith('.test.ts') &&
      !file.startsWith('test/') &&
      !file.includes('testing/'),
  );
  const sources = new Map<string, string>();
  for (const file of files) sources.set(file, await readFile(join(srcRoot, file), 'utf8'));
  return sources;
}
