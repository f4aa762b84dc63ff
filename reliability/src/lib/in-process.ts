import {
  buildApp,
  createApiKey,
  createDispatcher,
  type Database,
  ensureTenant,
  generateEncryptionKey,
  loadConfig,
  newId,
  openDatabase,
  openSecretBox,
  runMigrations,
  systemClock,
} from '@customer-api/server';
import type { FastifyInstance } from 'fastify';

/** Base URL of in-process apps (error `type` URIs start with it). */
export const IN_PROCESS_BASE_URL = 'http://reliability.test';

/** The real application built in this process (`buildApp`), answering through `inject()`. */
export interface InProcessApp {
  app: FastifyInstance;
  database: Database;
  /** Fans out pending events and attempts their deliveries once (a dispatcher pass). */
  dispatchOnce(): Promise<number>;
  /** Creates a tenant with a read+write key. */
  tenant(name: string): Promise<{ tenantId: string; apiKey: string }>;
  close(): Promise<void>;
}

/**
 * Builds the app on in-memory PGlite (or `databaseUrl`), with response validation on
 * (`NODE_ENV=test`), logs off and the rate limit out of the way unless `env` says otherwise.
 */
export async function startInProcess(
  env: Record<string, string> = {},
  databaseUrl?: string,
): Promise<InProcessApp> {
  const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: 'memory://' });
  await runMigrations(database);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    BASE_URL: IN_PROCESS_BASE_URL,
    RATE_LIMIT_MAX: '100000000',
    WEBHOOKS_ALLOW_INSECURE: '1',
    SECRETS_ENCRYPTION_KEYS: generateEncryptionKey(),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const secrets = openSecretBox(config);
  const app = await buildApp({ config, database, secrets });
  const deps = { db: database.db, clock: systemClock, ids: newId };
  return {
    app,
    database,
    dispatchOnce: () => createDispatcher({ ...deps, webhooks: config.webhooks, secrets }).runOnce(),
    tenant: async (name) => {
      const { tenantId } = await ensureTenant(deps, name);
      const { apiKey } = await createApiKey(deps, { tenantId, scopes: ['read', 'write'] });
      return { tenantId, apiKey };
    },
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
