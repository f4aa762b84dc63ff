import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadTestSettings } from '../config.js';
import { query } from '../test/sql.js';
import { openDatabase } from './database.js';
import { CURSOR_SECRET_SETTING, runMigrations } from './migrate.js';
import { readSetting } from './settings.js';

const { databaseUrl } = loadTestSettings();

describe.skipIf(!databaseUrl)('migrations on a PostgreSQL server', () => {
  it('run exactly once when several processes start together, and agree on one cursor secret', async () => {
    const name = `test_mig_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(databaseUrl ?? '');
    url.pathname = `/${name}`;
    const databases = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url.toString() })));
    try {
      await Promise.all(databases.map((d) => runMigrations(d)));
      const secrets = await Promise.all(databases.map((d) => readSetting(d.db, CURSOR_SECRET_SETTING)));
      expect(new Set(secrets).size).toBe(1);
      expect(secrets[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [first] = databases;
      const applied = first
        ? await query<{ n: number }>(first.db, 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')
        : [];
      const journalEntries = (await import('./migrations/meta/_journal.json', { with: { type: 'json' } }))
        .default.entries;
      expect(applied[0]?.n).toBe(journalEntries.length);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
