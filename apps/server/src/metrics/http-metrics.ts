import type { FastifyInstance } from 'fastify';
import { isStatementTimeout } from '../db/errors.js';
import { toDomainError } from '../http/errors.js';
import { RateLimitedError } from '../lib/errors.js';
import { operationNamer } from './operation-names.js';
import type { Metrics } from './registry.js';

/**
 * Counts every response by operation name and status class, with its latency, and the errors
 * operators alert on (429 by reason, statement timeouts). Hooks on the root instance, so every
 * scope, the 404 handler and errors raised in hooks are counted.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const nameOf = operationNamer();
  app.addHook('onError', async (_request, _reply, err) => {
    if (isStatementTimeout(err)) metrics.statementTimeouts.inc();
    const domain = toDomainError(err);
    if (domain instanceof RateLimitedError) metrics.rateLimited.inc({ reason: domain.reason });
  });
  app.addHook('onResponse', async (request, reply) => {
    const operation = nameOf(request.method, request.routeOptions.url);
    const statusClass = `${Math.floor(reply.statusCode / 100)}xx`;
    metrics.httpRequests.inc({ operation, method: request.method, status_class: statusClass });
    metrics.httpDuration.observe({ operation, status_class: statusClass }, reply.elapsedTime / 1000);
  });
}
