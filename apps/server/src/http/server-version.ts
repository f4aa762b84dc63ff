import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';

/** This server's version: the `version` of its package.json (the same from `src/` and `dist/`). */
export const SERVER_VERSION: string = (
  createRequire(import.meta.url)('../../package.json') as { version: string }
).version;

/** Sends `Server: customer-api/<version>` on every routed response, errors included. */
export function registerServerHeader(app: FastifyInstance): void {
  const value = `customer-api/${SERVER_VERSION}`;
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('server', value);
    done();
  });
}
