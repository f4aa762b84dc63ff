import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildApp } from '../app.js';
import { type Config, loadConfig, loadTestSettings } from '../config.js';
import type { NodePostgresDatabase } from '../db/adapters/node-postgres.js';
import type { Database } from '../db/database.js';
import type { TenantShare } from '../db/tenant-share.js';
import type { TenantBandwidth } from '../http/tenant-bandwidth.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../metrics/registry.js';
import type { AssetStore } from '../modules/assets/content/store.js';
import type { RateLimiter } from '../rate-limit/rate-limit.js';
import { generateEncryptionKey } from '../secrets/secret-box.js';
import type { Tracing } from '../tracing/index.js';
import { createSeeder, type Seeder, type TestTenant } from './seed.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** Base URL the test apps use in error `type` URIs. */
export const TEST_BASE_URL = 'http://api.test';

/** Options of {@link useTestApp}. */
export interface TestAppOptions {
  /** Extra environment variables for the app's configuration. */
  env?: Record<string, string>;
  clock?: Clock;
  rateLimiter?: (database: Database, config: Config) => RateLimiter;
  /** The app's database share (a test holding a tenant's units). */
  tenantShare?: TenantShare;
  /** The app's bandwidth share of large responses (a test watching a tenant's line). */
  tenantBandwidth?: TenantBandwidth;
  /** The app's asset store (a test observing what an upload stores). */
  assetStore?: (database: Database, config: Config) => Promise<AssetStore>;
  /** Where the app counts its requests (a test reading its metrics). */
  metrics?: Metrics;
  /** The app's tracing (a test reading its spans). */
  tracing?: Tracing;
  /** A standby for read operations (`DATABASE_REPLICA_URL`); the test closes it. */
  replica?: () => NodePostgresDatabase;
}

/** What a test file works with; fields are filled in `beforeAll` / `beforeEach`. */
export interface TestApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  seed: Seeder;
  /** A fresh tenant for the current test. */
  tenant: TestTenant;
  /** Headers authenticating as {@link TestApp.tenant} with a read+write key. */
  auth(apiKey?: string): Record<string, string>;
}

/** The key of stored secrets of every test app of this process (as production sets one). */
export const TEST_SECRETS_KEY = generateEncryptionKey();

/** Builds a test configuration (test settings decide the database). */
export function testConfig(env: Record<string, string> = {}): Config {
  const settings = loadTestSettings();
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: settings.logLevel,
    BASE_URL: TEST_BASE_URL,
    SECRETS_ENCRYPTION_KEYS: TEST_SECRETS_KEY,
    // Asset files go to a temporary directory removed with the app, never to ./.data.
    DATA_DIR: 'memory://',
    ...(settings.databaseUrl ? { DATABASE_URL: settings.databaseUrl } : {}),
    ...env,
  });
}

/**
 * One database and app per test FILE (a cold database costs seconds), a new tenant per test
 * instead of truncating tables. PGlite in memory unless TEST_DATABASE_URL is set.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  const t = {} as TestApp & { testDb: TestDatabase };
  beforeAll(async () => {
    t.testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    t.database = t.testDb.database;
    t.config = testConfig({ ...(t.testDb.url ? { DATABASE_URL: t.testDb.url } : {}), ...options.env });
    t.app = await buildApp({
      config: t.config,
      database: t.database,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter(t.database, t.config) } : {}),
      ...(options.tenantShare ? { tenantShare: options.tenantShare } : {}),
      ...(options.tenantBandwidth ? { tenantBandwidth: options.tenantBandwidth } : {}),
      ...(options.assetStore ? { assetStore: await options.assetStore(t.database, t.config) } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.tracing ? { tracing: options.tracing } : {}),
      ...(options.replica ? { replica: options.replica() } : {}),
    });
    t.seed = createSeeder(t.app, t.database.db);
  }, 60_000);
  beforeEach(async () => {
    t.tenant = await t.seed.tenant();
  });
  afterAll(async () => {
    await t.app?.close();
    await t.testDb?.dispose();
  });
  t.auth = (apiKey) => t.tenant.auth(apiKey);
  return t;
}
