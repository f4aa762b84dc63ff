import { cpSync, existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runPnpm } from './run.js';

/** A publishable package: its directory in the repository and its name. */
export interface Publishable {
  dir: string;
  name: string;
}

/** The packages `pnpm release` publishes. */
export const PUBLISHABLE: Publishable[] = [
  { dir: 'packages/contract', name: '@customer-api/contract' },
  { dir: 'packages/client', name: '@customer-api/client' },
  { dir: 'apps/mcp', name: '@customer-api/mcp' },
];

/** The server: private, never published, but versioned and packed like the others (see server.ts). */
export const SERVER_PACKAGE: Publishable = { dir: 'apps/server', name: '@customer-api/server' };

const WORKSPACE_GLOBS = ['packages', 'apps', 'examples', 'tools'];
const SKIP = new Set(['node_modules', '.turbo', '.data', 'coverage']);

/**
 * What `pnpm changeset version` runs and writes besides the packages: the root script's hook and
 * the compatibility gate's released baseline.
 */
const VERSION_HOOK = ['tools/release-check/scripts', 'tools/release-check/baseline'];

/**
 * Copies what `pnpm changeset version` and `pnpm pack` read into `scratch`: the root manifest, the
 * workspace file, `.changeset/`, the version hook, every workspace package's manifest and
 * changelog, and the publishable packages whole (with their built `dist/`). The repository is
 * never written to.
 */
export function copyWorkspace(root: string, scratch: string): void {
  for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset', ...VERSION_HOOK]) {
    cpSync(join(root, file), join(scratch, file), { recursive: true });
  }
  const publishable = new Set([...PUBLISHABLE, SERVER_PACKAGE].map((p) => p.dir));
  for (const group of WORKSPACE_GLOBS) {
    if (!existsSync(join(root, group))) continue;
    for (const name of readdirSync(join(root, group))) {
      const dir = `${group}/${name}`;
      if (!existsSync(join(root, dir, 'package.json'))) continue;
      if (publishable.has(dir)) {
        cpSync(join(root, dir), join(scratch, dir), {
          recursive: true,
          filter: (source) => !SKIP.has(source.split('/').pop() ?? ''),
        });
        continue;
      }
      for (const file of ['package.json', 'CHANGELOG.md']) {
        if (existsSync(join(root, dir, file))) cpSync(join(root, dir, file), join(scratch, dir, file));
      }
    }
  }
  // The changelog generator named in .changeset/config.json resolves from here.
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir');
}

/** Every workspace package of the scratch copy, by name. */
export function workspacePackages(scratch: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const group of WORKSPACE_GLOBS) {
    if (!existsSync(join(scratch, group))) continue;
    for (const name of readdirSync(join(scratch, group))) {
      const manifest = join(scratch, group, name, 'package.json');
      if (!existsSync(manifest)) continue;
      found.set(
        (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name,
        join(scratch, group, name),
      );
    }
  }
  return found;
}

/**
 * The versions after `pnpm changeset version` (the README's step) on the scratch copy; checks each
 * changelog names its version and every other file that carries one follows (see
 * {@link checkVersionedFiles}).
 */
export async function versionPackages(scratch: string): Promise<Map<string, string>> {
  const pending = readdirSync(join(scratch, '.changeset')).filter(
    (f) => f.endsWith('.md') && f !== 'README.md',
  );
  const serverBefore = readVersion(scratch, SERVER_PACKAGE.dir);
  const contractBefore = readVersion(scratch, 'packages/contract');
  await runPnpm(['changeset', 'version'], scratch);
  const versions = new Map<string, string>();
  const server = readVersion(scratch, SERVER_PACKAGE.dir);
  versions.set(SERVER_PACKAGE.name, server);
  if (server !== serverBefore && !hasEntry(scratch, SERVER_PACKAGE.dir, server)) {
    throw new Error(`${SERVER_PACKAGE.name}: changeset version wrote no CHANGELOG.md entry for ${server}`);
  }
  for (const { dir, name } of PUBLISHABLE) {
    const manifest = JSON.parse(readFileSync(join(scratch, dir, 'package.json'), 'utf8')) as {
      version: string;
    };
    versions.set(name, manifest.version);
    if (pending.length === 0) continue;
    const changelog = join(scratch, dir, 'CHANGELOG.md');
    if (!existsSync(changelog) || !readFileSync(changelog, 'utf8').includes(`## ${manifest.version}`)) {
      throw new Error(`${name}: changeset version wrote no CHANGELOG.md entry for ${manifest.version}`);
    }
  }
  const left = readdirSync(join(scratch, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (left.length > 0) throw new Error(`changeset version left changesets behind: ${left.join(', ')}`);
  checkVersionedFiles(scratch, versions, contractBefore);
  return versions;
}

/**
 * The files that carry a version changesets does not write are in step after `pnpm changeset
 * version`: the MCP Registry entry (server.json) names the MCP package's version, and a new
 * contract version is recorded as the released baseline of the compatibility gate.
 */
export function checkVersionedFiles(
  scratch: string,
  versions: Map<string, string>,
  contractBefore: string,
): void {
  const mcp = versions.get('@customer-api/mcp');
  const entry = JSON.parse(readFileSync(join(scratch, 'apps/mcp/server.json'), 'utf8')) as {
    version: string;
    packages: Array<{ version: string }>;
  };
  const named = new Set([entry.version, ...entry.packages.map((p) => p.version)]);
  if (named.size !== 1 || !named.has(mcp ?? '')) {
    throw new Error(
      `apps/mcp/server.json names ${[...named].join(', ')} after changeset version; the package is ${mcp}`,
    );
  }
  const contract = versions.get('@customer-api/contract');
  if (contract === contractBefore) return;
  const baseline = JSON.parse(
    readFileSync(join(scratch, 'tools/release-check/baseline/release.json'), 'utf8'),
  ) as { contractVersion: string; released: boolean };
  if (baseline.contractVersion !== contract || !baseline.released) {
    throw new Error(
      `the compatibility baseline records ${JSON.stringify(baseline)} after changeset version; the contract is ${contract}`,
    );
  }
}

function readVersion(scratch: string, dir: string): string {
  return (JSON.parse(readFileSync(join(scratch, dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

function hasEntry(scratch: string, dir: string, version: string): boolean {
  const changelog = join(scratch, dir, 'CHANGELOG.md');
  return existsSync(changelog) && readFileSync(changelog, 'utf8').includes(`## ${version}`);
}
