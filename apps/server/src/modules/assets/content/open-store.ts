import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../../config.js';
import type { Database } from '../../../db/database.js';
import { DirectoryStore } from './directory-store.js';
import { PostgresStore } from './postgres-store.js';
import type { AssetStore } from './store.js';

/**
 * The store the configuration implies: PostgreSQL itself with `DATABASE_URL` (every process
 * serves every file), else `DATA_DIR/assets` beside the embedded database (a temporary
 * directory, removed on close, when `DATA_DIR` is `memory://`).
 */
export async function openAssetStore(
  database: Database,
  config: Pick<Config, 'dataDir'>,
): Promise<AssetStore> {
  if (database.kind === 'postgres') return new PostgresStore(database.db);
  if (!config.dataDir.startsWith('memory://')) return new DirectoryStore(join(config.dataDir, 'assets'));
  const dir = await mkdtemp(join(tmpdir(), 'customer-api-assets-'));
  const store: AssetStore = new DirectoryStore(dir);
  store.close = () => rm(dir, { recursive: true, force: true });
  return store;
}
