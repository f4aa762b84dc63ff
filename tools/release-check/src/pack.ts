import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { run, runBin, runPnpm } from './run.js';
import { type Publishable, workspacePackages } from './scratch.js';

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/**
 * pnpm replaces a `workspace:` range with the version installed in the package's node_modules:
 * link the scratch copies there, as `pnpm install` would.
 */
export function linkWorkspaceDependencies(scratch: string, pkg: Publishable): void {
  const manifest = JSON.parse(readFileSync(join(scratch, pkg.dir, 'package.json'), 'utf8')) as Manifest & {
    devDependencies?: Record<string, string>;
  };
  const packages = workspacePackages(scratch);
  const all = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.devDependencies };
  for (const [dep, range] of Object.entries(all)) {
    const target = packages.get(dep);
    if (!range.startsWith('workspace:') || !target) continue;
    const link = join(scratch, pkg.dir, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
}

/** Packs a package with pnpm (which rewrites `workspace:` ranges); returns the tarball's path. */
export async function pack(scratch: string, pkg: Publishable, destination: string): Promise<string> {
  linkWorkspaceDependencies(scratch, pkg);
  const out = await runPnpm(['pack', '--pack-destination', destination], join(scratch, pkg.dir));
  const tarball = out
    .trim()
    .split('\n')
    .map((line) => line.trim())
    .reverse()
    .find((line) => line.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack printed no tarball for ${pkg.name}:\n${out}`);
  return tarball.startsWith('/') ? tarball : join(destination, tarball);
}

/** Checks the packed manifest: its version, and internal dependencies pinned to released versions. */
export async function checkManifest(tarball: string, versions: Map<string, string>): Promise<Manifest> {
  const manifest = JSON.parse(await run('tar', ['-xzOf', tarball, 'package/package.json'], '/')) as Manifest;
  if (JSON.stringify(manifest).includes('workspace:')) {
    throw new Error(`${manifest.name}: the packed package.json still has workspace: ranges`);
  }
  if (manifest.version !== versions.get(manifest.name)) {
    throw new Error(`${manifest.name}: packed ${manifest.version}, expected ${versions.get(manifest.name)}`);
  }
  for (const [dep, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    const released = versions.get(dep);
    if (released && !range.endsWith(released)) {
      throw new Error(`${manifest.name}: depends on ${dep}@${range}, but the release is ${released}`);
    }
  }
  return manifest;
}

/** publint (warnings are errors) and Are the Types Wrong (ESM-only package) on the tarball. */
export async function lintTarball(tarball: string, cwd: string): Promise<void> {
  await runBin('publint', 'src/cli.js', ['run', tarball, '--strict'], cwd);
  await runBin(
    '@arethetypeswrong/cli',
    'dist/index.js',
    [tarball, '--profile', 'esm-only', '--format', 'ascii'],
    cwd,
  );
}

/**
 * The tarball ships its LICENSE, and every source map in it points at sources it also ships
 * (a declaration map into missing `src/` files sends "go to definition" nowhere).
 */
export async function checkContents(tarball: string, name: string, scratch: string): Promise<void> {
  const dir = mkdtempSync(join(scratch, 'contents-'));
  await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], dir);
  const files = new Set(readdirSync(dir, { recursive: true, encoding: 'utf8' }));
  if (!files.has('LICENSE')) throw new Error(`${name}: the tarball has no LICENSE`);
  for (const file of [...files].filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources?: string[] };
    for (const source of map.sources ?? []) {
      const target = posix.normalize(posix.join(posix.dirname(file), source));
      if (!files.has(target))
        throw new Error(`${name}: ${file} points at ${target}, which the tarball lacks`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
