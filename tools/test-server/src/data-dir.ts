import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
 * renamed into place, so a reader never sees a half-made one.
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

/** How long a process waits for another one making the same template before making its own. */
const MAKER_WAIT_MS = 180_000;

async function makeTemplate(cli: string, path: string): Promise<string> {
  if (existsSync(path)) return path;
  // Test suites start at once under `pnpm test`: one makes the template, the others wait for it
  // instead of each running initdb too. A lock whose process is gone is taken over.
  const lock = `${path}.lock`;
  const owned = await takeLock(lock);
  if (!owned && (await madeByOther(path, lock))) return path;
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
    if (owned) await rm(lock, { force: true });
  }
}

/** Creates the lock file holding this process's id; false when it exists. */
async function takeLock(lock: string): Promise<boolean> {
  try {
    await writeFile(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits while another live process holds the lock; true once the template exists, false when the
 * lock went away without one, its process died (the stale lock is removed) or the wait ran out.
 */
async function madeByOther(path: string, lock: string): Promise<boolean> {
  const deadline = Date.now() + MAKER_WAIT_MS;
  while (Date.now() < deadline) {
    if (existsSync(path)) return true;
    const pid = Number(await readFile(lock, 'utf8').catch(() => 'gone'));
    if (Number.isNaN(pid)) return existsSync(path);
    if (pid > 0 && !isAlive(pid)) {
      await rm(lock, { force: true });
      return false;
    }
    // A file appearing in another process has no event to wait on here but its existence.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return existsSync(path);
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
