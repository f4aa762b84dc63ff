import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { TurnQueue } from './turn-queue.js';

/** How often Node checks the headers and request timeouts (set on the server in `app.ts`). */
export const connectionsCheckingInterval = (http: Config['http']) => Math.min(1000, http.headersTimeoutMs);

/**
 * Node's `headersTimeout` starts with the first request line, so a connection that never sends a
 * complete request would only meet the idle timeout, and socket idle timers are not reliable
 * beside Node's connection checks. Each new connection therefore gets a timer of its own: no
 * request within the headers timeout (plus two check intervals, so that half-sent headers still
 * get Node's answer first) and it is closed. The first request clears it. Connections opened in a
 * burst fall due together: they are closed a slice per turn of the event loop ({@link TurnQueue}),
 * so ten thousand idle sockets closing never hold up the requests of others.
 */
export function registerConnectionTimeouts(app: FastifyInstance, http: Config['http']): void {
  const firstRequestMs = http.headersTimeoutMs + 2 * connectionsCheckingInterval(http);
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const closer = new TurnQueue();
  app.server.on('connection', (socket: Socket) => {
    // Closed now or in a later turn, unless its first request arrived meanwhile (the hook below).
    const close = () => timers.has(socket) && socket.destroy();
    const timer = setTimeout(() => closer.runNowOrLater(close), firstRequestMs).unref();
    timers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
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
