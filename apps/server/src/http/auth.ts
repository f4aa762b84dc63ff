import { requiredScope } from '@customer-api/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import { enforceRateLimit, extraCostOf, type RateLimiter, showNotCounted } from '../rate-limit/rate-limit.js';
import type { KeyResolver } from '../tenants/auth-cache.js';
import type { AuthContext } from '../tenants/tenants.service.js';
import { responseBytes } from './large-responses.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set for every route under `/v0` before the handler runs. */
    auth: AuthContext | null;
  }
}

/** The caller of a `/v0` request (the auth hook guarantees it there). */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new UnauthorizedError('Missing API key.');
  return request.auth;
}

/** What {@link registerAuth} needs. */
export interface AuthDeps {
  resolveKey: KeyResolver;
  rateLimiter: RateLimiter;
}

/**
 * Authenticates every request of the scope it is registered in, then applies the rate limit
 * (per key; per client address while unauthenticated, which also slows key guessing), then
 * the tenant and scope rules: multi-tenant keys are refused everywhere, read-only keys on writes.
 */
export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.addHook('onRequest', async (request, reply) => {
    request.auth = await authenticate(request, reply, deps);
  });
  // A 304 does not count against the window (as GitHub's): its headers show the window without
  // it, and its point is given back once it is sent.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 304 && request.auth) showNotCounted(reply);
    return payload;
  });
  // Large responses cost more of the window, charged once they are sent (never delaying them).
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 304 && request.auth) {
      await deps.rateLimiter.refund(`key:${request.auth.keyId}`).catch(() => undefined);
      return;
    }
    const extra = extraCostOf(responseBytes(reply));
    if (request.auth && extra > 0) {
      await deps.rateLimiter.consume(`key:${request.auth.keyId}`, extra).catch(() => undefined);
    }
  });
}

async function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AuthDeps,
): Promise<AuthContext> {
  const header = request.headers['x-api-key'];
  const secret = typeof header === 'string' ? header.trim() : '';
  const addressKey = `ip:${request.ip}`;
  let auth = secret ? deps.resolveKey.peek(secret) : undefined;
  if (auth === null) {
    // An address that spent its window on bad keys is refused before its next guess costs a query.
    if (deps.rateLimiter.exhausted(addressKey)) await refuseUnauthenticated(deps, addressKey, reply, secret);
    auth = await deps.resolveKey(secret, {
      onTouchFailed: (err) =>
        request.log.warn({ err }, "Could not record the API key's use: the database refused the write"),
    });
  }
  if (!auth) return refuseUnauthenticated(deps, addressKey, reply, secret);
  // Every answer to a known key names its scopes, so a client can adapt (hide writes) up front.
  reply.header('x-oauth-scopes', auth.scopes.join(', '));
  await enforceRateLimit(deps.rateLimiter, `key:${auth.keyId}`, reply);
  if (auth.multiTenant)
    throw new ForbiddenError('Multi-tenant API keys are not accepted; use a key of one tenant.');
  const needed = requiredScope(request.method);
  if (!auth.scopes.includes(needed)) throw new ForbiddenError(`This API key lacks the ${needed} scope.`);
  return auth;
}

/**
 * 401 (or 429 once the address's window is spent), and the connection is closed after the
 * answer: a client without a valid key gets nothing from keeping it open.
 */
async function refuseUnauthenticated(
  deps: AuthDeps,
  addressKey: string,
  reply: FastifyReply,
  secret: string,
): Promise<never> {
  reply.header('connection', 'close');
  await enforceRateLimit(deps.rateLimiter, addressKey, reply);
  throw new UnauthorizedError(
    secret ? 'The API key is not valid.' : 'Missing API key: send it in the x-api-key header.',
  );
}
