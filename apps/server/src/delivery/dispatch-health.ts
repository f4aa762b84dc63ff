import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { rootErrorHandler } from '../http/errors.js';
import { genRequestId, registerRequestId } from '../http/request-id.js';
import { registerServerHeader, SERVER_VERSION } from '../http/server-version.js';
import { NotFoundError, ServiceUnavailableError } from '../lib/errors.js';

/**
 * The `dispatch` process's own HTTP endpoint, for a supervisor's health checks: `/healthz` (the
 * process is up, with its version) and `/readyz` (the database answers; else 503 with the error
 * object). Nothing else is served.
 */
export function buildDispatchHealth(config: Config, database: Database): FastifyInstance {
  const app = Fastify({ logger: false, genReqId: genRequestId, requestIdHeader: false });
  registerRequestId(app);
  registerServerHeader(app);
  app.setErrorHandler(rootErrorHandler(config.baseUrl));
  app.get('/healthz', async () => ({ status: 'ok', version: SERVER_VERSION }));
  app.get('/readyz', async () => {
    await database.ping().catch((cause: unknown) => {
      throw new ServiceUnavailableError('The database is not reachable.', { cause });
    });
    return { status: 'ready' };
  });
  app.setNotFoundHandler(() => {
    throw new NotFoundError('The dispatch process serves /healthz and /readyz only.');
  });
  return app;
}
