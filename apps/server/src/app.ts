import { contract, type OperationName, operationMeta } from '@customer-api/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { initServer, type RouterImplementation } from '@ts-rest/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { NodePostgresDatabase } from './db/adapters/node-postgres.js';
import type { Database } from './db/database.js';
import { CURSOR_SECRET_SETTING } from './db/migrate.js';
import { readSetting } from './db/settings.js';
import { TenantShare } from './db/tenant-share.js';
import { registerAuth } from './http/auth.js';
import { withConditions } from './http/conditional.js';
import { registerConnectionTimeouts } from './http/connection-timeouts.js';
import { registerCors } from './http/cors.js';
import { registerDeprecation } from './http/deprecation.js';
import { registerDocs } from './http/docs.js';
import { registerDraining } from './http/draining.js';
import { registerErrorPages } from './http/error-pages.js';
import { fromRequestValidation, rootErrorHandler } from './http/errors.js';
import { fastifyOptions } from './http/fastify-options.js';
import { registerHealth } from './http/health.js';
import { IdempotencyGuard } from './http/idempotency.js';
import { registerJsonParser } from './http/json-body.js';
import { bandwidthOf, registerLargeResponses } from './http/large-responses.js';
import { registerOpenApiDocument } from './http/openapi-document.js';
import { registerRequestId } from './http/request-id.js';
import { registerServerHeader } from './http/server-version.js';
import type { TenantBandwidth } from './http/tenant-bandwidth.js';
import { type Handler, type TenantHandles, withTenantDb } from './http/tenant-db.js';
import { tenantHandles } from './http/tenant-handles.js';
import { type Clock, systemClock } from './lib/clock.js';
import { NotFoundError } from './lib/errors.js';
import { type IdSource, newId } from './lib/ids.js';
import { type JsonText, parseJsonText } from './lib/json-text.js';
import { CursorCodec } from './lib/pagination.js';
import { registerHttpMetrics } from './metrics/http-metrics.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import {
  type ContentRouteDeps,
  registerContentDownloads,
  registerContentUploads,
} from './modules/assets/content/content.router.js';
import { DownloadLinks } from './modules/assets/content/links.js';
import { openAssetStore } from './modules/assets/content/open-store.js';
import type { AssetStore } from './modules/assets/content/store.js';
import { modules } from './modules/index.js';
import type { AppDeps, TaggedResources } from './modules/types.js';
import { createRateLimiter, type RateLimiter } from './rate-limit/rate-limit.js';
import { openSecretBox } from './secrets/keyring.js';
import type { SecretBox } from './secrets/secret-box.js';
import { createKeyResolver } from './tenants/auth-cache.js';
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

  app.decorateRequest('auth', null);
  options.tracing?.register(app, database);
  const metrics = options.metrics ?? createMetrics();
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

  registerHealth(app, database, rateLimiter);
  registerOpenApiDocument(app, config.baseUrl);
  registerDocs(app);
  registerErrorPages(app, config.baseUrl);

  const secret = await readSetting(database.db, CURSOR_SECRET_SETTING);
  if (!secret) throw new Error('The database is not migrated: run `customer-api migrate` first.');
  const deps: AppDeps = {
    clock: options.clock ?? systemClock,
    ids: options.ids ?? newId,
    cursors: new CursorCodec(secret),
    downloadLinks: DownloadLinks.forConfig(secret, config),
    secrets: options.secrets ?? openSecretBox(config),
    config,
  };
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

/** A GET of the contract that writes nothing (not a `writingRead`): it may run on a standby. */
function isRead(name: OperationName): boolean {
  const route = contract[name];
  return isAppRoute(route) && route.method === 'GET' && !operationMeta(name).writingRead;
}

/** `handler` answering with every {@link JsonText} of its body parsed. */
const withParsedJsonText =
  (handler: Handler): Handler =>
  async (args) => {
    const result = await handler(args);
    return { ...result, body: parseJsonText(result.body) };
  };

/**
 * Registers the modules' operations in a child scope: @ts-rest/fastify sets its own error handler
 * on the instance it gets, and ours forwards to the root handler. The router's types are cast
 * away below, so `routes.test.ts` checks that every operation of the contract has a route.
 */
function registerApi(
  scope: FastifyInstance,
  deps: AppDeps,
  {
    database,
    handles,
    rateLimiter,
    idempotency,
    bandwidth,
    content,
  }: {
    database: Database;
    handles: TenantHandles;
    rateLimiter: RateLimiter;
    idempotency: IdempotencyGuard;
    bandwidth: TenantBandwidth;
    content: ContentRouteDeps;
  },
): void {
  const resolveKey = createKeyResolver(database.db, {
    ttlMs: deps.config.authCacheTtlS * 1000,
    clock: deps.clock,
  });
  registerDeprecation(scope, contract);
  registerAuth(scope, { resolveKey, rateLimiter });
  registerLargeResponses(scope, bandwidth);
  idempotency.register(scope);
  registerContentUploads(scope, content);
  scope.addHook('preValidation', async (request) => {
    // An absent body on a POST is the empty object (decided: clients may omit `{}`).
    if (request.method === 'POST' && request.body === undefined) request.body = {};
  });
  const validating = deps.config.nodeEnv !== 'production';
  const implementation: Record<string, unknown> = {};
  for (const module of modules) Object.assign(implementation, module.routes(deps));
  const tagged: TaggedResources = Object.assign({}, ...modules.map((module) => module.tagged));
  for (const [name, handler] of Object.entries(implementation)) {
    const { resource } = operationMeta(name as OperationName);
    implementation[name] = withConditions(
      name as OperationName,
      handler as Parameters<typeof withConditions>[1],
      resource && tagged[resource],
      deps,
    );
  }
  // Response validation checks values: outside production, stored JSON text is parsed for it
  // (and then sent as values); production sends the text as it is.
  if (validating)
    for (const [name, handler] of Object.entries(implementation))
      implementation[name] = withParsedJsonText(handler as Handler);
  const names = Object.keys(implementation) as OperationName[];
  const subContract = Object.fromEntries(
    names.filter((n) => isAppRoute(contract[n])).map((n) => [n, contract[n]]),
  );
  const guarded = idempotency.wrapAll(implementation, subContract as Record<string, AppRoute>);
  const handlers = Object.fromEntries(
    Object.entries(guarded).map(([name, handler]) => [
      name,
      withTenantDb(handler as Handler, handles, isRead(name as OperationName) ? 'read' : 'write'),
    ]),
  );
  initServer().registerRouter(subContract as AppRouter, handlers as RouterImplementation<AppRouter>, scope, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: validating,
    requestValidationErrorHandler: (err) => {
      throw fromRequestValidation(err);
    },
  });
}
