import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { NodePostgresDatabase } from './db/adapters/node-postgres.js';
import type { Database } from './db/database.js';
import { CURSOR_SECRET_SETTING } from './db/migrate.js';
import { readSetting } from './db/settings.js';
import { TenantShare } from './db/tenant-share.js';
import { registerApi } from './http/api-routes.js';
import { registerConnectionTimeouts } from './http/connection-timeouts.js';
import { registerCors } from './http/cors.js';
import { registerDocs } from './http/docs.js';
import { registerDraining } from './http/draining.js';
import { registerErrorPages } from './http/error-pages.js';
import { rootErrorHandler } from './http/errors.js';
import { fastifyOptions } from './http/fastify-options.js';
import { registerHealth } from './http/health.js';
import { IdempotencyGuard } from './http/idempotency.js';
import { registerJsonParser } from './http/json-body.js';
import { bandwidthOf } from './http/large-responses.js';
import { registerOpenApiDocument } from './http/openapi-document.js';
import { registerRequestId } from './http/request-id.js';
import { registerServerHeader } from './http/server-version.js';
import type { TenantBandwidth } from './http/tenant-bandwidth.js';
import { tenantHandles } from './http/tenant-handles.js';
import { type Clock, systemClock } from './lib/clock.js';
import { NotFoundError } from './lib/errors.js';
import { type IdSource, newId } from './lib/ids.js';
import { CursorCodec } from './lib/pagination.js';
import { registerHttpMetrics } from './metrics/http-metrics.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { type ContentRouteDeps, registerContentDownloads } from './modules/assets/content/content.router.js';
import { DownloadLinks } from './modules/assets/content/links.js';
import { openAssetStore } from './modules/assets/content/open-store.js';
import type { AssetStore } from './modules/assets/content/store.js';
import type { AppDeps } from './modules/types.js';
import { createRateLimiter, type RateLimiter } from './rate-limit/rate-limit.js';
import { openSecretBox } from './secrets/keyring.js';
import type { SecretBox } from './secrets/secret-box.js';
import type { Tracing } from './tracing/index.js';

/** Inputs of {@link buildApp}. The database is opened and migrated by the caller. */
export interface BuildAppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  ids?: IdSource;
  /** Defaults to the store the configuration implies (memory, PostgreSQL or Redis). */
  rateLimiter?: RateLimiter;
  /** Defaults to the configuration's `tenantShare` limits. */
  tenantShare?: TenantShare;
  /** Defaults to the configuration's `tenantShare.responseBytesPerS`. */
  tenantBandwidth?: TenantBandwidth;
  /** Defaults to the store the configuration implies (PostgreSQL, or a directory under DATA_DIR). */
  assetStore?: AssetStore;
  /** Where the app counts its requests; defaults to a registry of its own (served by no one). */
  metrics?: Metrics;
  /** Request and statement spans; absent while tracing is off (nothing is registered then). */
  tracing?: Tracing;
  /**
   * The streaming standby of `DATABASE_REPLICA_URL`, opened (and closed) by the caller beside the
   * primary `database`: read operations may run on it.
   */
  replica?: NodePostgresDatabase;
  /** Seals and opens stored signing secrets; defaults to the configuration's (`secrets/keyring.ts`). */
  secrets?: SecretBox;
}

/** Builds the HTTP application. It never listens: `main.ts` does, tests use `inject()`. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify(fastifyOptions(config));
  const rateLimiter = await openRateLimiter(app, options);
  const metrics = options.metrics ?? createMetrics();
  registerRootHooks(app, options, metrics);
  registerHealth(app, database, rateLimiter);
  registerOpenApiDocument(app, config.baseUrl);
  registerDocs(app);
  registerErrorPages(app, config.baseUrl);

  const deps = await appDeps(options);
  const store = options.assetStore ?? (await openAssetStore(database, config));
  app.addHook('onClose', async () => store.close?.());
  const share =
    options.tenantShare ??
    new TenantShare({ concurrency: config.tenantShare.dbConcurrency, queueMs: config.tenantShare.queueMs });
  const handles = tenantHandles(app, config, { database, replica: options.replica, share, metrics });
  const content: ContentRouteDeps = { ...deps, handles, store, maxBytes: config.assets.maxBytes };
  registerContentDownloads(app, content);
  const idempotency = new IdempotencyGuard({
    clock: deps.clock,
    ttlS: config.idempotencyTtlS,
    baseUrl: config.baseUrl,
    responseValidation: config.nodeEnv !== 'production',
    secrets: deps.secrets,
  });
  app.decorate('idempotency', idempotency);
  const bandwidth = options.tenantBandwidth ?? bandwidthOf(config);
  await app.register(async (scope) =>
    registerApi(scope, deps, { database, handles, rateLimiter, idempotency, bandwidth, content }),
  );
  return app;
}

/** The given rate limiter, or the one the configuration implies; ready, and closed with the app. */
async function openRateLimiter(app: FastifyInstance, { config, database, ...options }: BuildAppOptions) {
  const rateLimiter =
    options.rateLimiter ??
    createRateLimiter({
      ...config.rateLimit,
      redisUrl: config.redisUrl,
      pool: database.pool,
      onRedisState: (state, err) =>
        state === 'lost'
          ? app.log.warn({ err }, 'Redis unreachable: rate limits are counted per process until it is back')
          : app.log.info('Redis reachable again: rate limits are shared again'),
    });
  app.addHook('onClose', async () => rateLimiter.close());
  await rateLimiter.ready();
  return rateLimiter;
}

/** The hooks every request passes, routed or not, and the root error and not-found handlers. */
function registerRootHooks(
  app: FastifyInstance,
  { config, database, tracing }: BuildAppOptions,
  metrics: Metrics,
) {
  app.decorateRequest('auth', null);
  tracing?.register(app, database);
  registerHttpMetrics(app, metrics);
  registerConnectionTimeouts(app, config.http);
  registerRequestId(app);
  registerCors(app, config.corsAllowedOrigins);
  registerServerHeader(app);
  registerDraining(app);
  registerJsonParser(app);
  app.setErrorHandler(rootErrorHandler(config.baseUrl));
  app.setNotFoundHandler((request) => {
    throw new NotFoundError(`No route ${request.method} ${request.url.split('?')[0]}.`);
  });
}

/** The modules' deps; the cursor secret is read from the migrated database. */
async function appDeps({ config, database, ...options }: BuildAppOptions): Promise<AppDeps> {
  const secret = await readSetting(database.db, CURSOR_SECRET_SETTING);
  if (!secret) throw new Error('The database is not migrated: run `customer-api migrate` first.');
  return {
    clock: options.clock ?? systemClock,
    ids: options.ids ?? newId,
    cursors: new CursorCodec(secret),
    downloadLinks: DownloadLinks.forConfig(secret, config),
    secrets: options.secrets ?? openSecretBox(config),
    config,
  };
}
