import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../tenants/tenants.service.js';
import { ForbiddenError, UnauthorizedError } from './errors.js';
import { enforceRateLimit, type RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every route under `/v0` before the handler runs. */
    auth: AuthContext | null;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The caller of a `/v0` request (the auth hook guarantees it there). */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new UnauthorizedError('Missing API key.');
  return request.auth;
}

/**
 * Authenticates every request of the scope it is registered in, then applies the rate limit
 * (per key; per client address while unauthenticated, which also slows key guessing), then
 * the tenant and scope rules: multi-tenant keys are refused everywhere, read-only keys on writes.
 */
export function registerAuth(
  app: FastifyInstance,
  deps: { resolveKey: (secret: string) => Promise<AuthContext | undefined>; rateLimiter: RateLimiter },
): void {
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers['x-api-key'];
    const secret = typeof header === 'string' ? header.trim() : '';
    const auth = secret ? await deps.resolveKey(secret) : undefined;
    if (!auth) {
      await enforceRateLimit(deps.rateLimiter, `ip:${request.ip}`, reply);
      throw new UnauthorizedError(
        secret ? 'The API key is not valid.' : 'Missing API key: send it in the x-api-key header.',
      );
    }
    await enforceRateLimit(deps.rateLimiter, `key:${auth.keyId}`, reply);
    if (auth.multiTenant)
      throw new ForbiddenError('Multi-tenant API keys are not accepted; use a key of one tenant.');
    const needed = READ_METHODS.has(request.method) ? 'read' : 'write';
    if (!auth.scopes.includes(needed)) throw new ForbiddenError(`This API key lacks the ${needed} scope.`);
    request.auth = auth;
  });
}
