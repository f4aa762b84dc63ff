import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { prepareDatabase } from '../db/migrate.js';
import type { WebhookDispatcher } from '../delivery/dispatcher.js';
import { deliveryObserver } from '../metrics/delivery-metrics.js';
import { type ProcessMetrics, startProcessMetrics } from '../metrics/start.js';
import { openSecretBox } from '../secrets/keyring.js';
import { sealPlaintextSecrets } from '../secrets/reseal.js';
import type { Tracing } from '../tracing/index.js';
import { ensureDemo } from './demo-data.js';
import { startDispatcher } from './dispatch.js';
import { exitCodeOnSignal, openReplicaDatabase, openServingDatabase } from './lifecycle.js';
import type { CliIo } from './types.js';

/**
 * `start` / `serve`: migrates, optionally prepares the first-run demo, listens, and on SIGTERM
 * or SIGINT stops accepting, finishes in-flight requests and closes the database.
 */
export async function commandServe(
  config: Config,
  io: CliIo,
  options: { demo: boolean; tracing?: Tracing | undefined },
): Promise<number> {
  const database = await openServingDatabase(config);
  const replica = openReplicaDatabase(config);
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  let observed: ProcessMetrics | undefined;
  try {
    await prepareDatabase(database, config.migrateOnStart);
    await sealPlaintextSecrets(database.db, openSecretBox(config));
    const demo = options.demo ? await ensureDemo(database, config) : undefined;
    observed = await startProcessMetrics(config, database);
    app = await buildApp({
      config,
      database,
      metrics: observed.metrics,
      ...(replica ? { replica } : {}),
      ...(options.tracing ? { tracing: options.tracing } : {}),
    });
    const open = await database.warm();
    if (open < config.database.poolSize && database.kind === 'postgres')
      app.log.warn(
        { open, poolSize: config.database.poolSize },
        'PostgreSQL accepted fewer connections than DATABASE_POOL_SIZE at start; the rest open on demand',
      );
    await app.listen({ host: config.host, port: config.port });
    if (config.webhooks.dispatchInServer) {
      const observer = deliveryObserver(observed.metrics.registry);
      dispatcher = startDispatcher(database, config, app.log.child({ component: 'webhooks' }), observer);
    }
    io.out(banner(config, demo));
  } catch (err) {
    await dispatcher?.stop();
    await app?.close();
    await observed?.listener?.close();
    await replica?.close();
    await database.close();
    throw err;
  }
  const running = app;
  const metricsListener = observed.listener;
  return exitCodeOnSignal({
    log: running.log,
    message: 'shutting down',
    graceMs: config.shutdownGraceMs,
    // In-flight requests and webhook deliveries both finish before the database closes.
    stop: async () => {
      await Promise.all([running.close(), dispatcher?.stop(), metricsListener?.close()]);
      await replica?.close();
      await database.close();
    },
  });
}

function banner(config: Config, demo: { apiKey: string | undefined } | undefined): string {
  const url = config.baseUrl;
  const lines = [
    '',
    `Customer API listening on ${url}`,
    `  API reference:    ${url}/docs`,
    `  OpenAPI document: ${url}/openapi.json`,
  ];
  if (demo?.apiKey) {
    lines.push(
      '',
      'First run: created the demo tenant with this API key (shown once, stored only as a hash):',
      `  ${demo.apiKey}`,
      '',
      'Try:',
      `  curl -H "x-api-key: ${demo.apiKey}" ${url}/v0/pages`,
      `  curl -H "x-api-key: ${demo.apiKey}" "${url}/v0/pages?limit=2"`,
    );
  } else if (demo) {
    lines.push(
      '',
      'Using the existing data. The demo key was printed on the first start; for a new one run:',
      '  pnpm customer-api keys create --tenant demo',
      '',
      'Try:',
      `  curl -H "x-api-key: <key>" ${url}/v0/pages`,
    );
  }
  lines.push('', 'Stop with Ctrl+C.', '');
  return lines.join('\n');
}
