import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkWorkspaceDependencies } from './pack.js';
import { run, runPnpm } from './run.js';
import { PUBLISHABLE, type Publishable } from './scratch.js';
import type { Registry } from './verdaccio.js';

/** Who commits and tags in the scratch repository (changeset publish tags each release). */
const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'release-check',
  GIT_AUTHOR_EMAIL: 'release-check@localhost',
  GIT_COMMITTER_NAME: 'release-check',
  GIT_COMMITTER_EMAIL: 'release-check@localhost',
};

/**
 * Makes the scratch copy what a maintainer has: a git repository with the workspace committed
 * and an `.npmrc` naming the registry and a token for it (the ENEEDAUTH fix), nothing else.
 */
export async function prepareRepository(repo: string, registry: Registry): Promise<void> {
  writeFileSync(join(repo, '.npmrc'), registry.npmrc);
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  const git = (...args: string[]) => run('git', args, repo, undefined, GIT_IDENTITY);
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'Workspace before the release');
}

/**
 * Gives a scratch package the dependencies of its workspace original (links into the workspace's
 * node_modules), with its workspace siblings linked to their scratch copies, so its own build
 * script runs there.
 */
function linkDependencies(root: string, repo: string, pkg: Publishable): void {
  const from = join(root, pkg.dir, 'node_modules');
  const to = join(repo, pkg.dir, 'node_modules');
  linkWorkspaceDependencies(repo, pkg);
  const entries = readdirSync(from).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(from, name)).map((sub) => `${name}/${sub}`) : [name],
  );
  for (const entry of entries) {
    if (existsSync(join(to, entry))) continue;
    mkdirSync(join(to, entry, '..'), { recursive: true });
    symlinkSync(join(from, entry), join(to, entry));
  }
}

/**
 * What `pnpm release` does before `changeset publish`: builds each publishable package with its own
 * build script, so what is published is built from the versioned sources (the client's built-in
 * `CLIENT_VERSION` included).
 */
export async function buildPublishables(root: string, repo: string): Promise<void> {
  cpSync(join(root, 'tsconfig.base.json'), join(repo, 'tsconfig.base.json'));
  for (const pkg of PUBLISHABLE) {
    linkDependencies(root, repo, pkg);
    await runPnpm(['run', 'build'], join(repo, pkg.dir));
  }
}

/**
 * `pnpm changeset publish`, the README's step, in the scratch repository; returns its output.
 * The registry comes from the repository's `.npmrc` alone; provenance is whatever the
 * environment says (release.yml turns it on), so an inherited setting is removed.
 */
export async function changesetPublish(repo: string): Promise<string> {
  const env: Record<string, string | undefined> = { ...GIT_IDENTITY };
  for (const name of Object.keys(process.env)) {
    if (/^npm_config_(registry|provenance)$/i.test(name)) env[name] = undefined;
  }
  return runPnpm(['changeset', 'publish'], repo, env);
}

/** The versions of `name` the registry holds, asked with npm as a user would. */
export async function publishedVersions(registry: Registry, name: string, cwd: string): Promise<string[]> {
  const out = await run('npm', ['view', name, 'versions', '--json', `--registry=${registry.url}`], cwd);
  // npm's warnings share the output (under pnpm, about pnpm's own npm_config_* variables).
  const json = out
    .split('\n')
    .filter((line) => !/^npm (warn|notice)/.test(line))
    .join('\n');
  const versions = JSON.parse(json) as string | string[];
  return Array.isArray(versions) ? versions : [versions];
}

/** The git tags of the scratch repository (changeset publish makes `<name>@<version>` for each release). */
export async function gitTags(repo: string): Promise<string[]> {
  return (await run('git', ['tag', '--list'], repo)).split('\n').filter(Boolean);
}
