import { afterAll, beforeAll } from 'vitest';
import { loadTestSettings } from '../config.js';
import type { Handle } from '../db/port.js';
import { rowOf, sql, statement, text } from '../db/sql.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** The settings the port's specification runs under: PGlite, or PostgreSQL with TEST_DATABASE_URL. */
export const portSettings = loadTestSettings();
export const onPostgres = Boolean(portSettings.databaseUrl);

const createNotes = statement({
  name: '',
  sql: () => sql`CREATE TABLE port_notes (id text PRIMARY KEY, body text NOT NULL)`,
});
export const addNote = statement({
  name: 'port_test_add_note',
  params: { id: text, body: text },
  sql: (p) => sql`INSERT INTO port_notes (id, body) VALUES (${p.id}, ${p.body})`,
});
export const noteBody = statement({
  name: 'port_test_note_body',
  params: { id: text },
  sql: (p) => sql`SELECT body FROM port_notes WHERE id = ${p.id}`,
  row: rowOf<{ body: string }>(),
});
export const bodyOf = async (db: Handle, id: string) => (await db.first(noteBody, { id }))?.body;

let next = 0;
export const newId = () => {
  next += 1;
  return `note_${next}`;
};

/** A migrated database for one of the port's test files, with a `port_notes` table to write to. */
export async function createNotesDatabase(): Promise<TestDatabase> {
  const testDb = await createTestDatabase(portSettings.databaseUrl);
  await testDb.database.db.run(createNotes, {});
  return testDb;
}

/** {@link createNotesDatabase} for the test file that calls it: made before its tests, disposed after. */
export function useNotesDatabase(): { readonly db: TestDatabase } {
  const holder = {} as { db: TestDatabase };
  beforeAll(async () => {
    holder.db = await createNotesDatabase();
  }, 60_000);
  afterAll(async () => {
    await holder.db?.dispose();
  });
  return holder;
}
