import { eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { serverSettings } from './schema/index.js';

/** Stores `make()` under `name` unless a value exists; returns the stored value (first writer wins). */
export async function ensureSetting(db: Db, name: string, make: () => string): Promise<string> {
  await db.insert(serverSettings).values({ name, value: make() }).onConflictDoNothing();
  const value = await readSetting(db, name);
  if (value === undefined) throw new Error(`Setting ${name} could not be stored`);
  return value;
}

/** Reads a server setting. */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const rows = await db
    .select({ value: serverSettings.value })
    .from(serverSettings)
    .where(eq(serverSettings.name, name));
  return rows[0]?.value;
}
