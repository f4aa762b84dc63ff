import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli.js';
import { loadTestSettings } from '../config.js';
import { type Database, openDatabase } from './database.js';
import { NotMigratedError, pendingMigrations, prepareDatabase, runMigrations } from './migrate.js';
import journal from './migrations/meta/_journal.json' with { type: 'json' };

const { databaseUrl } = loadTestSettings();

/** An empty database: a fresh one on the PostgreSQL server, else an in-memory PGlite. */
async function emptyDatabase(): Promise<{
  database: Database;
  url: string | undefined;
  drop(): Promise<void>;
}> {
  if (!databaseUrl) {
    const database = await openDatabase({ dataDir: 'memory://' });
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `test_mos_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

describe('MIGRATE_ON_START', () => {
  let empty: Awaited<ReturnType<typeof emptyDatabase>>;
  let dir: string;
  beforeAll(async () => {
    empty = await emptyDatabase();
    dir = await mkdtemp(join(tmpdir(), 'customer-api-mos-'));
  });
  afterAll(async () => {
    await empty?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('0: an unmigrated database is refused with what to run; once migrated it is accepted', async () => {
    const shipped = journal.entries.length;
    expect(await pendingMigrations(empty.database)).toBe(shipped);
    const refused = await prepareDatabase(empty.database, false).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(NotMigratedError);
    expect((refused as Error).message).toBe(
      `The database has ${shipped} pending migration(s) and MIGRATE_ON_START=0: run \`customer-api migrate\` first.`,
    );
    await runMigrations(empty.database);
    expect(await pendingMigrations(empty.database)).toBe(0);
    await expect(prepareDatabase(empty.database, false)).resolves.toBeUndefined();
  });

  it.skipIf(databaseUrl)(
    'serve and dispatch exit 1 on an unmigrated data directory, naming `migrate`',
    async () => {
      for (const command of ['serve', 'dispatch']) {
        let err = '';
        const code = await runCli([command], {
          env: { LOG_LEVEL: 'silent', DATA_DIR: join(dir, command), MIGRATE_ON_START: '0', PORT: '0' },
          out: () => {},
          err: (text) => {
            err += text;
          },
        });
        expect(code, command).toBe(1);
        expect(err).toMatch(
          /pending migration\(s\) and MIGRATE_ON_START=0: run `customer-api migrate` first\.\n$/,
        );
        expect(err).not.toMatch(/\n\s+at /);
      }
    },
  );
});
