import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loadTestSettings } from '../config.js';
import { openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a dump of a freshly migrated PGlite (absent when tests run on PostgreSQL). */
    pgliteSnapshot: string | undefined;
  }
}

/** Migrates one PGlite once per run and shares its dump, so each test file skips initdb. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (loadTestSettings().databaseUrl) {
    project.provide('pgliteSnapshot', undefined);
    return async () => {};
  }
  const database = await openDatabase({ dataDir: 'memory://' });
  await runMigrations(database);
  const dump = await database.pglite?.dumpDataDir('none');
  await database.close();
  if (!dump) throw new Error('no PGlite to dump');
  const path = join(tmpdir(), `customer-api-pglite-${process.pid}-${Date.now()}.tar`);
  await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSnapshot', path);
  return async () => {
    await rm(path, { force: true });
  };
}
