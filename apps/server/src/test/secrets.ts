import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '../app.js';
import { runCli } from '../cli/cli.js';
import { type Config, loadConfig, loadTestSettings } from '../config.js';
import { type Database, openDatabase } from '../db/database.js';
import { runMigrations } from '../db/migrate.js';
import { createDispatcher } from '../delivery/dispatcher.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { openSecretBox } from '../secrets/keyring.js';
import { createSeeder, type Seeder, type TestTenant } from './seed.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** An app on the file's database, opened with one value of `SECRETS_ENCRYPTION_KEYS`. */
export interface OpenedApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  /** Creates tenants, keys, pages and versions through the app. */
  seed: Seeder;
  /**
   * Records one `page.version.created` event for the tenant (a page, an audience, a version) and
   * runs a dispatcher once with the app's own secret box, as `customer-api dispatch` would.
   */
  deliverOneEvent(tenant: TestTenant): Promise<void>;
  close(): Promise<void>;
}

/**
 * A database that outlives its apps, as a server's does across restarts: a PGlite data directory
 * on disk, or with TEST_DATABASE_URL a fresh PostgreSQL database. Each app (and each CLI run) opens
 * it with the keys it is given; absent keys leave the variable unset.
 */
export function useDurableDatabase() {
  const state = {} as { dataDir?: string; testDb?: TestDatabase; url?: string };
  beforeAll(async () => {
    const serverUrl = loadTestSettings().databaseUrl;
    if (serverUrl) {
      state.testDb = await createTestDatabase(serverUrl);
      state.url = state.testDb.url;
    } else {
      state.dataDir = await mkdtemp(join(tmpdir(), 'customer-api-secrets-'));
    }
  }, 60_000);
  afterAll(async () => {
    await state.testDb?.dispose();
    if (state.dataDir) await rm(state.dataDir, { recursive: true, force: true });
  });
  const env = (keys?: string): Record<string, string> => ({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    WEBHOOKS_ALLOW_INSECURE: '1',
    ...(state.url ? { DATABASE_URL: state.url, DATA_DIR: 'memory://' } : { DATA_DIR: state.dataDir ?? '' }),
    ...(keys === undefined ? {} : { SECRETS_ENCRYPTION_KEYS: keys }),
  });
  return {
    /** The PostgreSQL URL, or undefined on PGlite. */
    get url() {
      return state.url;
    },
    /** The PGlite data directory, or undefined on PostgreSQL. */
    get dataDir() {
      return state.dataDir;
    },
    env,
    async open(keys?: string): Promise<OpenedApp> {
      const config = loadConfig(env(keys));
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      await runMigrations(database);
      const app = await buildApp({ config, database });
      const seed = createSeeder(app, database.db);
      return {
        app,
        database,
        config,
        seed,
        async deliverOneEvent(tenant) {
          const page = await seed.page(tenant);
          const audience = await seed.audience(tenant, page.pageId);
          await seed.version(tenant, page.pageId, audience.audienceId);
          await createDispatcher({
            db: database.db,
            clock: systemClock,
            ids: newId,
            webhooks: config.webhooks,
            secrets: openSecretBox(config),
          }).runOnce();
        },
        close: async () => {
          await app.close();
          await database.close();
        },
      };
    },
    /** Runs the CLI on the database; resolves with its exit code and output. */
    async cli(keys: string | undefined, ...args: string[]) {
      let out = '';
      let err = '';
      const code = await runCli(args, {
        env: env(keys),
        out: (text) => {
          out += text;
        },
        err: (text) => {
          err += text;
        },
      });
      return { code, out, err };
    },
  };
}
