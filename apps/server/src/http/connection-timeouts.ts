import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { TurnQueue } from './turn-queue.js';

/** How often Node checks the headers and request timeouts (set on the server in `fastify-options.ts`). */
export const connectionsCheckingInterval = (http: Config['http']) => Math.min(1000, http.headersTimeoutMs);

/**
 * Node's `headersTimeout` starts with the first request line, so a connection that never sends a
 * complete request would only meet the idle timeout, and socket idle timers are not reliable
 * beside Node's connection checks. Each new connection therefore gets a timer of its own: no
 * request within the headers timeout (plus two check intervals) and it is closed. The first request
 * clears it. A connection that has begun one by then gets as long again, for Node's headers timeout
 * to answer its half-sent headers with the error object: on a loaded machine the server may read a
 * burst's first bytes long after accepting it, and the timer fell due first, closing connections
 * without their answer. Connections opened in a burst fall due together: they are closed a slice
 * per turn of the event loop ({@link TurnQueue}), so ten thousand idle sockets closing never hold
 * up the requests of others.
 */
export function registerConnectionTimeouts(app: FastifyInstance, http: Config['http']): void {
  const firstRequestMs = http.headersTimeoutMs + 2 * connectionsCheckingInterval(http);
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const closer = new TurnQueue();
  app.server.on('connection', (socket: Socket) => {
    // Closed now or in a later turn, unless its first request arrived meanwhile (the hook below).
    // One that has begun a request gets as long again for Node's own timeouts to answer it.
    const close = (graced: boolean) => {
      if (!timers.has(socket)) return;
      if (socket.bytesRead > 0 && !graced) arm(true);
      else socket.destroy();
    };
    const arm = (graced: boolean) =>
      timers.set(socket, setTimeout(() => closer.runNowOrLater(() => close(graced)), firstRequestMs).unref());
    arm(false);
    socket.once('close', () => clearTimeout(timers.get(socket)));
  });
  app.addHook('onRequest', async (request) => {
    const socket = request.raw.socket;
    const timer = socket && timers.get(socket);
    if (timer) {
      clearTimeout(timer);
      timers.delete(socket);
    }
  });
}
