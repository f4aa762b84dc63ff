import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { binOf, packageDir, run } from './run.js';

/** Imports from plain ESM, as a Node.js consumer would; exits non-zero when an export is missing. */
const ESM_CHECK = `import assert from 'node:assert/strict';
import { contract, generateOpenApi, OPERATION_NAMES } from '@customer-api/contract';
import { createClient, verifyWebhook, NotFoundError } from '@customer-api/client';
import { buildServer, parseConfig } from '@customer-api/mcp';
import { createRequire } from 'node:module';
assert.ok(OPERATION_NAMES.includes('listPages'));
assert.equal(typeof contract.listPages, 'object');
assert.equal(generateOpenApi().openapi, '3.1.0');
const require = createRequire(import.meta.url);
assert.equal(require('@customer-api/contract/openapi.json').openapi, '3.1.0');
const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'cak_x', maxRetries: 0 });
assert.equal(typeof client.listPages, 'function');
await client.close();
assert.equal(typeof verifyWebhook, 'function');
assert.ok(new NotFoundError({ status: 404, headers: new Headers(), body: {}, error: {} }) instanceof Error);
assert.equal(typeof buildServer, 'function');
assert.equal(typeof parseConfig, 'function');
console.log('esm imports ok');
`;

/** Type-checks a consumer's TypeScript against the packed declarations. */
const TS_CHECK = `import { type Page, contract } from '@customer-api/contract';
import { type CustomerApiClient, createClient, type WebhookDeliveryBody } from '@customer-api/client';
import { buildServer } from '@customer-api/mcp';

const client: CustomerApiClient = createClient({ apiKey: 'cak_x' });
export async function firstPageName(): Promise<string | undefined> {
  const pages = await client.listPages({ query: { limit: 1 } });
  const page: Page | undefined = pages.items[0];
  return page?.name;
}
export function eventType(delivery: WebhookDeliveryBody): string {
  return delivery.payload.type;
}
// @ts-expect-error: limit is a number; a typed client rejects a string.
void client.listPages({ query: { limit: 'ten' } });
export const route: string = contract.listPages.path;
export const server: unknown = buildServer;
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    // ts-rest's own .d.ts files name zod 3 types and fail a full check under zod 4; the usage
    // below is still checked against our declarations (the @ts-expect-error proves they are typed).
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['check.mts'],
};

/** Where the consumer's third-party dependencies come from. */
export type InstallSource = 'workspace' | 'registry';

/** Creates an empty ESM consumer project in `dir`; returns `dir`. */
export function emptyProject(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  return dir;
}

/** A packed tarball, the workspace directory it was packed from, and its packed manifest. */
export interface Packed {
  tarball: string;
  source: string;
  manifest: {
    name: string;
    version: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
}

/** The zod a consumer installs beside the packages (a peer of contract, client and MCP). */
export interface OwnZod {
  /** Where that zod is installed in this workspace (a dev dependency of the release check). */
  dir: string;
  version: string;
}

/** The release check's own zod dependencies: `zod` (the workspace's) and `zod-floor` (the peer range's lowest). */
export function ownZod(alias: 'zod' | 'zod-floor'): OwnZod {
  const dir = realpathSync(join(packageDir, 'node_modules', alias));
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return { dir, version };
}

/**
 * npm installs the tarballs and resolves their dependencies on the registry, as a user's install
 * would. Bounded: a stalled registry fails the check in minutes instead of hanging it.
 */
async function installFromRegistry(dir: string, packed: Packed[]): Promise<void> {
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--no-package-lock',
      '--prefer-offline',
      '--fetch-timeout=30000',
      '--fetch-retries=2',
      '--loglevel=error',
      ...packed.map((p) => p.tarball),
      `zod@${ownZod('zod').version}`,
      '@types/node@^20.19.0',
    ],
    dir,
    300_000,
  );
}

/**
 * Lays the tarballs out as npm would (each unpacked into `node_modules/<name>`) and links every
 * dependency their manifests declare from the workspace's installed copy, after checking that
 * copy's version satisfies the declared range. No network: the same result on every run. A
 * dependency missing from a manifest is not linked, so an import of it fails as a user's would.
 * The consumer's own zod (`zod`, none for a project that gets zod from a dependency) is linked
 * first; every peer dependency must then be installed at a version its range accepts.
 */
export async function installFromWorkspace(
  dir: string,
  packed: Packed[],
  zod: OwnZod | undefined = ownZod('zod'),
): Promise<void> {
  const modules = join(dir, 'node_modules');
  for (const { tarball, manifest } of packed) {
    const target = join(modules, manifest.name);
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], dir);
  }
  if (zod) {
    link(modules, 'zod', zod.dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { zod: zod.version } }),
    );
  }
  const names = new Set(packed.map((p) => p.manifest.name));
  const wanted: Array<[dep: string, range: string, from: string]> = [['@types/node', '^20.19.0', packageDir]];
  for (const { source, manifest } of packed) {
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
      if (!names.has(dep)) wanted.push([dep, range, source]);
    }
  }
  for (const [dep, range, from] of wanted) {
    const installed = realpathSync(join(from, 'node_modules', dep));
    const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      version: string;
    };
    if (!semver.satisfies(version, range, { includePrerelease: true })) {
      throw new Error(`${dep}@${range} is declared, but the workspace tested ${version}`);
    }
    link(modules, dep, installed);
  }
  checkPeers(modules, packed);
}

function link(modules: string, dep: string, target: string): void {
  const path = join(modules, dep);
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, 'dir');
}

/**
 * Every peer dependency of the packed packages is installed (an optional one may be absent), at a
 * version its range accepts.
 */
function checkPeers(modules: string, packed: Packed[]): void {
  for (const { manifest } of packed) {
    for (const [dep, range] of Object.entries(manifest.peerDependencies ?? {})) {
      const file = join(modules, dep, 'package.json');
      if (!existsSync(file)) {
        if (manifest.peerDependenciesMeta?.[dep]?.optional) continue;
        throw new Error(`${manifest.name} needs the peer ${dep}@${range}, not installed`);
      }
      const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
      if (!semver.satisfies(version, range)) {
        throw new Error(`${manifest.name} needs the peer ${dep}@${range}, but ${version} is installed`);
      }
    }
  }
}

/** A package and, transitively, the packed packages it depends on. */
export function closure(root: Packed, all: Packed[]): Packed[] {
  const byName = new Map(all.map((p) => [p.manifest.name, p]));
  const found = new Map<string, Packed>();
  const visit = (p: Packed) => {
    if (found.has(p.manifest.name)) return;
    found.set(p.manifest.name, p);
    for (const dep of Object.keys(p.manifest.dependencies ?? {})) {
      const internal = byName.get(dep);
      if (internal) visit(internal);
    }
  };
  visit(root);
  return [...found.values()];
}

/**
 * Each package installed alone into an empty project and imported: a dependency that a package
 * uses but only a sibling declares would pass a shared install and break a user who installs
 * just that package.
 */
async function checkEachAlone(dir: string, packed: Packed[]): Promise<void> {
  for (const pkg of packed) {
    const alone = emptyProject(join(dir, pkg.manifest.name.replace(/[@/]/g, '_')));
    await installFromWorkspace(alone, closure(pkg, packed));
    await run(
      process.execPath,
      ['--input-type=module', '-e', `await import('${pkg.manifest.name}');`],
      alone,
    );
  }
}

/**
 * A scratch consumer project: the tarballs installed (see {@link InstallSource}), imported from
 * ESM, the MCP bin run, and a TypeScript file type-checked against the packed declarations; with
 * the workspace source, each package is also installed and imported on its own.
 */
export async function checkConsumer(dir: string, packed: Packed[], from: InstallSource): Promise<void> {
  const shared = emptyProject(join(dir, 'all'));
  if (from === 'registry') {
    await installFromRegistry(shared, packed);
  } else {
    await installFromWorkspace(shared, packed);
    await checkEachAlone(join(dir, 'alone'), packed);
  }
  writeFileSync(join(shared, 'esm.mjs'), ESM_CHECK);
  await run(process.execPath, ['esm.mjs'], shared);
  const help = await run(process.execPath, ['node_modules/@customer-api/mcp/dist/main.js', '--help'], shared);
  if (!help.includes('Usage: customer-api-mcp')) throw new Error(`customer-api-mcp --help printed:\n${help}`);
  writeFileSync(join(shared, 'check.mts'), TS_CHECK);
  writeFileSync(join(shared, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  await run(process.execPath, [binOf('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], shared);
}
