import { deprecationHeaders, type OperationMeta } from '@customer-api/contract';
import { type AppRouter, isAppRoute } from '@ts-rest/core';
import type { FastifyInstance } from 'fastify';

/**
 * Sends `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) on every response to an operation whose
 * contract metadata marks it deprecated, errors included (set when the request arrives, before
 * authentication can answer). Registers nothing when no operation is deprecated.
 */
export function registerDeprecation(scope: FastifyInstance, routes: AppRouter): void {
  const headersByRoute = new Map<string, Record<string, string>>();
  for (const route of Object.values(routes)) {
    if (!isAppRoute(route)) continue;
    const deprecated = (route.metadata as OperationMeta | undefined)?.deprecated;
    if (deprecated)
      headersByRoute.set(`${route.method} ${route.path}`, { ...deprecationHeaders(deprecated) });
  }
  if (headersByRoute.size === 0) return;
  scope.addHook('onRequest', async (request, reply) => {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const headers = headersByRoute.get(`${method} ${request.routeOptions.url}`);
    if (headers) reply.headers(headers);
  });
}
