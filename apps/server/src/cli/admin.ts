import type { Config } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { openSecretBox } from '../secrets/keyring.js';
import { sealPlaintextSecrets } from '../secrets/reseal.js';
import { ensureTenant } from '../tenants/tenants.service.js';
import { seedDemoData } from './demo-data.js';
import { startProgress } from './progress.js';
import { seedAccounts } from './seed-accounts.js';
import type { CliIo } from './types.js';

/** Opens and migrates the configured database, runs `fn`, and always closes it. */
export async function withDatabase<T>(config: Config, fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await runMigrations(database);
    return await fn(database);
  } finally {
    await database.close();
  }
}

/** `migrate`: applies migrations, then seals any signing secret still stored in plaintext. */
export async function commandMigrate(config: Config, io: CliIo): Promise<number> {
  const box = openSecretBox(config);
  await withDatabase(config, (database) => sealPlaintextSecrets(database.db, box));
  io.err('Migrations applied.\n');
  return 0;
}

/** `seed`: adds demo data to a tenant (created when new); prints `{"tenantId","pages"}`. */
export async function commandSeed(config: Config, io: CliIo, tenant: string): Promise<number> {
  const result = await withDatabase(config, async (database) => {
    const { tenantId } = await ensureTenant({ db: database.db, clock: systemClock, ids: newId }, tenant);
    const pages = await seedDemoData(database, config, tenantId);
    return { tenantId, pages };
  });
  io.out(`${JSON.stringify(result)}\n`);
  return 0;
}

/** `seed --accounts n`: adds n accounts to a tenant (created when new); prints `{"tenantId","accounts"}`. */
export async function commandSeedAccounts(
  config: Config,
  io: CliIo,
  tenant: string,
  count: number,
): Promise<number> {
  const result = await withDatabase(config, async (database) => {
    const { tenantId } = await ensureTenant({ db: database.db, clock: systemClock, ids: newId }, tenant);
    const progress = startProgress(io, 'accounts', count);
    try {
      return { tenantId, accounts: await seedAccounts(database, tenantId, count, progress) };
    } finally {
      progress.stop();
    }
  });
  io.out(`${JSON.stringify(result)}\n`);
  return 0;
}
