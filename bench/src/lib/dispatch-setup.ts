// What a webhook scenario's coordinator opens before it starts `customer-api dispatch` processes:
// their environment, and the server's pieces it writes subscriptions and events with (the key it
// generates seals the subscriptions' secrets and lets the dispatchers open them).
import {
  generateEncryptionKey,
  loadConfig,
  newId,
  openDatabase,
  openSecretBox,
  systemClock,
} from '@customer-api/server';

/**
 * The dispatchers' environment on `databaseUrl` (every tenant may take every slot, so that a rate
 * measured is the machine's, not the fairness cap's), with the config, database and deps the
 * coordinator uses.
 */
export async function openDispatchSetup(databaseUrl) {
  const env = {
    DATABASE_URL: databaseUrl,
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOKS_TENANT_CONCURRENCY: '16',
    LOG_LEVEL: 'silent',
    SECRETS_ENCRYPTION_KEYS: generateEncryptionKey(),
  };
  const config = loadConfig(env);
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  const deps = { db: database.db, clock: systemClock, ids: newId, config, secrets: openSecretBox(config) };
  return { env, config, database, deps };
}
