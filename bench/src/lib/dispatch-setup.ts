// What a webhook scenario's coordinator opens before it starts `customer-api dispatch` processes:
// their environment, and the server's pieces it writes subscriptions and events with (the key it
// generates seals the subscriptions' secrets and lets the dispatchers open them).
import { randomBytes } from 'node:crypto';
import {
  type Config,
  type Database,
  type ensureTenant,
  generateEncryptionKey,
  loadConfig,
  newId,
  openDatabase,
  openSecretBox,
  systemClock,
} from '@customer-api/server';
import {
  CursorCodec,
  type createWebhookSubscription,
  type recordVersionEvent,
} from '@customer-api/server/internals';

/** What the server's services that write tenants, subscriptions and events need. */
export type DispatchDeps = Parameters<typeof ensureTenant>[0] &
  Parameters<typeof createWebhookSubscription>[0];
/** A transaction of the server's database, as its outbox writes events in one. */
export type Tx = Parameters<typeof recordVersionEvent>[0];

/** What {@link openDispatchSetup} opens. */
export interface DispatchSetup {
  env: NodeJS.ProcessEnv;
  config: Config;
  database: Database;
  deps: DispatchDeps;
}

/**
 * The dispatchers' environment on `databaseUrl` (every tenant may take every slot, so that a rate
 * measured is the machine's, not the fairness cap's), with the config, database and deps the
 * coordinator uses.
 */
export async function openDispatchSetup(databaseUrl: string | undefined): Promise<DispatchSetup> {
  const env = {
    DATABASE_URL: databaseUrl,
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOKS_TENANT_CONCURRENCY: '16',
    LOG_LEVEL: 'silent',
    SECRETS_ENCRYPTION_KEYS: generateEncryptionKey(),
  };
  const config = loadConfig(env);
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  const deps: DispatchDeps = {
    db: database.db,
    clock: systemClock,
    ids: newId,
    config,
    secrets: openSecretBox(config),
    // Only the services' list operations use a cursor codec; the coordinator calls none of them.
    cursors: new CursorCodec(randomBytes(32).toString('base64')),
  };
  return { env, config, database, deps };
}
