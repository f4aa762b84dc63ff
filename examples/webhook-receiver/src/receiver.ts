import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type WebhookDeliveryBody, WebhookVerificationError } from '@customer-api/client';

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  /**
   * The subscription's signing secret (`whsec_…`), shown once when it was created; a function
   * when it is known only after the receiver listens (the subscription needs the receiver's URL).
   */
  secret: string | (() => string);
  /** Called once per event, however often the service delivers it. */
  onEvent(delivery: WebhookDeliveryBody): Promise<void> | void;
  port?: number;
  host?: string;
  /** Where deliveries arrive (default `/webhooks`). */
  path?: string;
}

/** A listening receiver. */
export interface Receiver {
  url: string;
  /** Deliveries that arrived with a valid signature, duplicates included. */
  received: number;
  /** Event ids handled so far. */
  handled: Set<string>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Starts an HTTP receiver. Each delivery is verified against the raw body and headers (a bad
 * signature or an old timestamp gets 401), then handled once per `eventId`: deliveries are
 * at-least-once, so a redelivery or a retry after a lost response must not act twice. A 2xx tells
 * the service to stop retrying; an error from `onEvent` answers 500, so the service retries later.
 *
 * The set of handled ids lives in memory here; a real receiver records them where it records the
 * effect (e.g. a unique column in its own database, in the same transaction).
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const path = options.path ?? '/webhooks';
  const secretOf = typeof options.secret === 'function' ? options.secret : () => options.secret as string;
  const handled = new Set<string>();
  const inFlight = new Map<string, Promise<void>>();
  const state: Receiver = { url: '', received: 0, handled, close: async () => {} };

  const handle = async (delivery: WebhookDeliveryBody) => {
    if (handled.has(delivery.eventId)) return;
    // Two concurrent deliveries of one event share one handling.
    let running = inFlight.get(delivery.eventId);
    if (!running) {
      running = Promise.resolve(options.onEvent(delivery)).then(() => {
        handled.add(delivery.eventId);
      });
      inFlight.set(delivery.eventId, running);
      running.finally(() => inFlight.delete(delivery.eventId)).catch(() => {});
    }
    await running;
  };

  const server: Server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== path) {
      response.writeHead(404).end();
      return;
    }
    try {
      const rawBody = await readBody(request);
      const delivery = verifyWebhook({ secret: secretOf(), rawBody, headers: request.headers });
      state.received += 1;
      await handle(delivery);
      response.writeHead(204).end();
    } catch (err) {
      const refused = err instanceof WebhookVerificationError;
      response
        .writeHead(refused ? 401 : 500, { 'content-type': 'text/plain' })
        .end(refused ? err.message : 'failed');
    }
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  state.url = `http://${address}:${port}${path}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
