import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type CliOptions, inheritedEnv, runCli, SERVER_CLI, type TempDir, tempDir } from './server.js';

/**
 * What makes a migrated data directory of one server build: its migrations and the PGlite it runs
 * (the data format). Changing either makes another template.
 */
function templateKey(cli: string): string {
  const hash = createHash('sha256').update(cli);
  const migrations = join(dirname(cli), 'db', 'migrations');
  const names = existsSync(migrations) ? readdirSync(migrations, { recursive: true, encoding: 'utf8' }) : [];
  for (const name of names.sort()) {
    const file = join(migrations, name);
    if (statSync(file).isFile()) hash.update(name).update(readFileSync(file));
  }
  // pnpm's store path names the version: .pnpm/@electric-sql+pglite@<version>/...
  const pglite = join(dirname(dirname(cli)), 'node_modules', '@electric-sql', 'pglite');
  hash.update(existsSync(pglite) ? realpathSync(pglite) : 'no-pglite');
  return hash.digest('hex').slice(0, 16);
}

/** Templates made or found by this process, by key. */
const templates = new Map<string, Promise<string>>();

/**
 * The template of `cli`'s build: `customer-api migrate` run once on an empty data directory, kept
 * in the OS temp folder for every later process of this machine. Made in a staging directory and
 * renamed into place, so a reader never sees a half-made one; two processes making it at once
 * both succeed and one copy is kept.
 */
function template(cli: string): Promise<string> {
  const key = templateKey(cli);
  let made = templates.get(key);
  if (!made) {
    made = makeTemplate(cli, join(tmpdir(), `customer-api-pglite-template-${key}`));
    templates.set(key, made);
    made.catch(() => templates.delete(key));
  }
  return made;
}

async function makeTemplate(cli: string, path: string): Promise<string> {
  if (existsSync(path)) return path;
  const staging = await mkdtemp(`${path}-staging-`);
  try {
    const env = { ...inheritedEnv(['DATABASE_URL']), DATA_DIR: staging, LOG_LEVEL: 'warn' };
    await runCli(env, ['migrate'], { cli });
    await rename(staging, path).catch((error: NodeJS.ErrnoException) => {
      // Another process renamed its template into place first: theirs serves as well.
      if (!existsSync(path)) throw error;
    });
    return path;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * A temporary PGlite data directory (`DATA_DIR`) already initialised and migrated by the server
 * CLI: a copy of a template made once per server build on this machine. Starting a server or a
 * CLI command on it skips PGlite's initdb and the migrations (about 3.5 s of CPU each on a fresh
 * directory). For tests of anything but the first start of a server on an empty directory.
 */
export async function migratedDataDir(prefix: string, options: CliOptions = {}): Promise<TempDir> {
  const source = await template(options.cli ?? SERVER_CLI);
  const dir = await tempDir(prefix);
  await cp(source, dir.path, { recursive: true });
  return dir;
}
