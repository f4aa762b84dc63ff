import { contract, type OperationName, operationMeta } from '@customer-api/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { initServer, type RouterImplementation } from '@ts-rest/fastify';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { type JsonText, parseJsonText } from '../lib/json-text.js';
import { type ContentRouteDeps, registerContentUploads } from '../modules/assets/content/content.router.js';
import { modules } from '../modules/index.js';
import type { AppDeps, TaggedResources } from '../modules/types.js';
import type { RateLimiter } from '../rate-limit/rate-limit.js';
import { createKeyResolver } from '../tenants/auth-cache.js';
import { registerAuth } from './auth.js';
import { withConditions } from './conditional.js';
import { registerDeprecation } from './deprecation.js';
import { fromRequestValidation } from './errors.js';
import type { IdempotencyGuard } from './idempotency.js';
import { registerLargeResponses } from './large-responses.js';
import type { TenantBandwidth } from './tenant-bandwidth.js';
import { type Handler, type TenantHandles, withTenantDb } from './tenant-db.js';

/** What {@link registerApi} serves the contract's operations with, beside the modules' deps. */
export interface ApiRouteDeps {
  database: Database;
  handles: TenantHandles;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyGuard;
  bandwidth: TenantBandwidth;
  content: ContentRouteDeps;
}

/**
 * Registers the modules' operations in a child scope: @ts-rest/fastify sets its own error handler
 * on the instance it gets, and ours forwards to the root handler. The router's types are cast
 * away below, so `routes.test.ts` checks that every operation of the contract has a route.
 */
export function registerApi(
  scope: FastifyInstance,
  deps: AppDeps,
  { database, handles, rateLimiter, idempotency, bandwidth, content }: ApiRouteDeps,
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
  const implementation = moduleHandlers(deps, validating);
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

/** Every module's handlers by operation name, each answering its conditional requests. */
function moduleHandlers(deps: AppDeps, validating: boolean): Record<string, unknown> {
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
  return implementation;
}

/** `handler` answering with every {@link JsonText} of its body parsed. */
const withParsedJsonText =
  (handler: Handler): Handler =>
  async (args) => {
    const result = await handler(args);
    return { ...result, body: parseJsonText(result.body) };
  };

/** A GET of the contract that writes nothing (not a `writingRead`): it may run on a standby. */
function isRead(name: OperationName): boolean {
  const route = contract[name];
  return isAppRoute(route) && route.method === 'GET' && !operationMeta(name).writingRead;
}
