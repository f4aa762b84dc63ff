import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';

/** A migrated database for one test file, and how to throw it away. */
export interface TestDatabase {
  database: Database;
  /** The URL of the per-file PostgreSQL database (undefined on PGlite). */
  url: string | undefined;
  dispose(): Promise<void>;
}

/**
 * In-memory PGlite by default. With a PostgreSQL server URL, a fresh uniquely named database is
 * created for the file and dropped at the end, so parallel files and runs never collide.
 */
export async function createTestDatabase(serverUrl: string | undefined): Promise<TestDatabase> {
  if (!serverUrl) {
    // A cold PGlite costs ~2 s of initdb; the global setup's migrated dump loads in a fraction.
    const snapshot = inject('pgliteSnapshot');
    const loadDataDir = snapshot ? new Blob([await readFile(snapshot)]) : undefined;
    const database = await openDatabase({ dataDir: 'memory://', loadDataDir });
    await runMigrations(database);
    return { database, url: undefined, dispose: () => database.close() };
  }
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  await runMigrations(database);
  return {
    database,
    url: url.toString(),
    dispose: async () => {
      await database.close();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
