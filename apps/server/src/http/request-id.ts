import type { FastifyInstance } from 'fastify';
import { newId } from '../lib/ids.js';

/** Generates the id of each request (`req_…`); incoming ids are ignored so the prefix always holds. */
export const genRequestId = (): string => newId('req');

/** Sends `x-request-id` on every response, equal to the error body's `requestId`. */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}
