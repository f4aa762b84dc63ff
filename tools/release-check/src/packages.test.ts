import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { PUBLISHABLE, SERVER_PACKAGE } from './scratch.js';

interface Manifest {
  name: string;
  files?: string[];
  homepage?: string;
  bugs?: { url: string };
  keywords?: string[];
  repository?: { type: string; url: string; directory?: string };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  publishConfig?: Record<string, unknown>;
}

const root = join(import.meta.dirname, '../../..');
const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
const rootManifest = manifestOf('.');
/** The one repository address: the root manifest's; every package must agree with it. */
const repository = rootManifest.repository?.url.replace(/^git\+/, '').replace(/\.git$/, '') ?? '';
const license = readFileSync(join(root, 'LICENSE'), 'utf8');
const installedZod = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../node_modules/zod/package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe.each([...PUBLISHABLE, SERVER_PACKAGE].map((p) => [p.name, p.dir] as const))('%s', (_name, dir) => {
  const manifest = manifestOf(dir);

  it("names the root's repository, with its directory, homepage and issues", () => {
    expect(repository).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    expect(manifest.repository).toEqual({ type: 'git', url: `git+${repository}.git`, directory: dir });
    expect(manifest.homepage).toBe(`${repository}/tree/main/${dir}#readme`);
    expect(manifest.bugs).toEqual({ url: `${repository}/issues` });
    expect(manifest.keywords?.length).toBeGreaterThan(2);
  });

  it('ships the root LICENSE', () => {
    expect(manifest.files).toContain('LICENSE');
    expect(existsSync(join(root, dir, 'LICENSE')) && readFileSync(join(root, dir, 'LICENSE'), 'utf8')).toBe(
      license,
    );
  });
});

describe.each(PUBLISHABLE.map((p) => [p.name, p.dir] as const))('%s and zod', (_name, dir) => {
  const manifest = manifestOf(dir);

  it('takes zod as a peer (one copy, the consumer’s), within the tested range', () => {
    expect(manifest.dependencies?.zod).toBeUndefined();
    const range = manifest.peerDependencies?.zod ?? '';
    expect(range).toBe(manifestOf('packages/contract').peerDependencies?.zod);
    expect(manifest.devDependencies?.zod).toBe('catalog:');
    // The release check installs both ends of the range into a consumer (see own-zod.ts).
    const floor = manifestOf('tools/release-check').devDependencies?.['zod-floor']?.replace('npm:zod@', '');
    expect(semver.minVersion(range)?.version).toBe(floor);
    expect(semver.satisfies(installedZod, range)).toBe(true);
  });
});

describe.each(PUBLISHABLE.map((p) => [p.name, p.dir] as const))('%s publishing', (_name, dir) => {
  it('publishes to any registry: public access, provenance left to the release workflow', () => {
    // A publishConfig.provenance wins over the environment and fails outside GitHub Actions
    // (EUSAGE on a private registry); release.yml sets NPM_CONFIG_PROVENANCE instead.
    expect(manifestOf(dir).publishConfig).toEqual({ access: 'public' });
  });
});
