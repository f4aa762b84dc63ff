import type { Handle } from './port.js';
import { rowOf, sql, statement, text } from './sql.js';

const insertSetting = statement({
  name: 'setting_insert',
  params: { name: text, value: text },
  sql: (p) =>
    sql`INSERT INTO server_settings (name, value) VALUES (${p.name}, ${p.value}) ON CONFLICT (name) DO NOTHING`,
});

const settingByName = statement({
  name: 'setting_by_name',
  params: { name: text },
  sql: (p) => sql`SELECT value FROM server_settings WHERE name = ${p.name}`,
  row: rowOf<{ value: string }>(),
});

/** Stores `make()` under `name` unless a value exists; returns the stored value (first writer wins). */
export async function ensureSetting(db: Handle, name: string, make: () => string): Promise<string> {
  await db.run(insertSetting, { name, value: make() });
  const value = await readSetting(db, name);
  if (value === undefined) throw new Error(`Setting ${name} could not be stored`);
  return value;
}

/** Reads a server setting. */
export async function readSetting(db: Handle, name: string): Promise<string | undefined> {
  return (await db.first(settingByName, { name }))?.value;
}
