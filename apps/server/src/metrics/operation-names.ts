import { contract } from '@customer-api/contract';
import { isAppRoute } from '@ts-rest/core';

/** The `operation` label of a request that matched no route. */
export const UNKNOWN_OPERATION = 'unknown';

// Routes outside the contract, by their fixed names; every other registered route outside the
// contract is labelled by its URL pattern (finite: never the raw URL, so the cardinality is bounded).
const OPERATIONAL: Record<string, string> = {
  '/healthz': 'healthz',
  '/readyz': 'readyz',
  '/openapi.json': 'openapi',
  '/docs': 'docs',
};

/**
 * Maps a matched route (method and Fastify URL pattern) to the contract's operation name, e.g.
 * `GET /v0/pages/:page_id` to `getPage`. HEAD is labelled as the GET it mirrors.
 */
export function operationNamer(): (method: string, pattern: string | undefined) => string {
  const byRoute = new Map<string, string>();
  for (const [name, route] of Object.entries(contract)) {
    if (isAppRoute(route)) byRoute.set(`${route.method} ${route.path}`, name);
  }
  return (method, pattern) => {
    if (pattern === undefined) return UNKNOWN_OPERATION;
    const verb = method === 'HEAD' ? 'GET' : method;
    return byRoute.get(`${verb} ${pattern}`) ?? OPERATIONAL[pattern] ?? pattern;
  };
}

/** How many operations the contract names (the bound on the `operation` label, with a few fixed names). */
export function contractOperationCount(): number {
  return Object.values(contract).filter((route) => isAppRoute(route)).length;
}
