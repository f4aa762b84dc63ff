import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import type { RateLimiter } from '../rate-limit/rate-limit.js';
import { SERVER_VERSION } from './server-version.js';

/** `/healthz` (the process is up, with its version) and `/readyz` (the database answers). */
export function registerHealth(app: FastifyInstance, database: Database, rateLimiter: RateLimiter): void {
  app.get('/healthz', async () => ({ status: 'ok', version: SERVER_VERSION }));
  app.get('/readyz', async () => {
    await database.ping();
    // Requests are served without Redis (per-process limits): ready, and saying what is degraded.
    const redis = await (rateLimiter.ping?.() ?? Promise.resolve()).then(
      () => true,
      () => false,
    );
    return redis ? { status: 'ready' } : { status: 'ready', degraded: ['redis'] };
  });
}
