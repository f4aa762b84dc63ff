import { pino } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { prepareDatabase } from '../db/migrate.js';
import type { DeliveryObserver } from '../delivery/deliver.js';
import { buildDispatchHealth } from '../delivery/dispatch-health.js';
import { createDispatcher, type DispatcherLog, type WebhookDispatcher } from '../delivery/dispatcher.js';
import { OUTBOX_CHANNEL } from '../delivery/outbox.js';
import { systemClock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { deliveryObserver } from '../metrics/delivery-metrics.js';
import { type ProcessMetrics, startProcessMetrics } from '../metrics/start.js';
import { openSecretBox } from '../secrets/keyring.js';
import { sealPlaintextSecrets } from '../secrets/reseal.js';
import { exitCodeOnSignal, openServingDatabase } from './lifecycle.js';

/** Starts the dispatcher of a process that already has the database open (the server). */
export function startDispatcher(
  database: Database,
  config: Config,
  log: DispatcherLog,
  observer?: DeliveryObserver,
): WebhookDispatcher {
  const dispatcher = createDispatcher({
    db: database.db,
    clock: systemClock,
    ids: newId,
    webhooks: config.webhooks,
    secrets: openSecretBox(config),
    // The process's slots, and each tenant's share of them (WEBHOOKS_CONCURRENCY, _TENANT_CONCURRENCY).
    concurrency: config.webhooks.concurrency,
    tenantConcurrency: config.webhooks.tenantConcurrency,
    log,
    notifications: (onEvent) => database.listen(OUTBOX_CHANNEL, onEvent),
    observer,
  });
  dispatcher.start();
  return dispatcher;
}

/**
 * `customer-api dispatch`: a process that only delivers webhooks. Several may run against one
 * PostgreSQL (each claims disjoint attempts). With `DISPATCH_PORT` set it answers `/healthz` and
 * `/readyz` on `HOST:DISPATCH_PORT`, and with `METRICS_PORT` `GET /metrics` on `HOST:METRICS_PORT`.
 * On SIGTERM or SIGINT it finishes in-flight deliveries (at most `SHUTDOWN_GRACE_MS`), then exits.
 */
export async function commandDispatch(config: Config): Promise<number> {
  const log = pino({ level: config.logLevel }).child({ component: 'webhooks' });
  const database = await openServingDatabase(config);
  const health = config.dispatchPort === undefined ? undefined : buildDispatchHealth(config, database);
  let dispatcher: WebhookDispatcher;
  let observed: ProcessMetrics | undefined;
  try {
    await prepareDatabase(database, config.migrateOnStart);
    await sealPlaintextSecrets(database.db, openSecretBox(config));
    await health?.listen({ host: config.host, port: config.dispatchPort });
    observed = await startProcessMetrics(config, database);
    dispatcher = startDispatcher(database, config, log, deliveryObserver(observed.metrics.registry));
  } catch (err) {
    await health?.close();
    await observed?.listener?.close();
    await database.close();
    throw err;
  }
  const metricsListener = observed.listener;
  if (health) log.info({ readyz: `http://${config.host}:${config.dispatchPort}/readyz` }, 'health checks');
  return exitCodeOnSignal({
    log,
    message: 'stopping the webhook dispatcher',
    graceMs: config.shutdownGraceMs,
    stop: async () => {
      await dispatcher.stop();
      await Promise.all([health?.close(), metricsListener?.close()]);
      await database.close();
    },
  });
}
