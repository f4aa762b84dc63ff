import type { FastifyInstance } from 'fastify';
import { ServiceUnavailableError } from '../lib/errors.js';

/**
 * While shutting down, requests still arriving on open keep-alive connections get the error
 * object (503, `Connection: close`) instead of Fastify's own 503 body.
 */
export function registerDraining(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new ServiceUnavailableError('The server is shutting down; retry on another instance.');
  });
}
