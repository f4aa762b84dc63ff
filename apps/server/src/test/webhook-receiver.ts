import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent (what signatures cover). */
  body: string;
  eventId: string;
  /** The request target (path and query): tells subscriptions sharing a receiver apart. */
  path: string;
}

/** How the receiver answers one request; `hang` never answers (until the test closes it). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  hang?: boolean;
  /** Holds the answer until this settles: a slow receiver the test releases, never a timer. */
  until?: Promise<unknown>;
  /** Runs after the request was read and before answering (e.g. to kill a dispatcher). */
  before?: () => Promise<void> | void;
}

/** A webhook receiver on 127.0.0.1 for tests, answering from a script of replies. */
export interface TestReceiver {
  url: string;
  received: Received[];
  /** Most requests ever open at the same time. */
  maxInFlight: number;
  /** Replies for the next requests, in order; afterwards every request gets `fallback`. */
  script(...replies: Reply[]): void;
  fallback: Reply;
  /** Resolves when at least `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a receiver on an ephemeral loopback port. */
export async function startReceiver(): Promise<TestReceiver> {
  const received: Received[] = [];
  const queue: Reply[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const receiver = { fallback: { status: 200 } as Reply, maxInFlight: 0 } as TestReceiver;
  let inFlight = 0;
  const server = createServer(async (req, res) => {
    inFlight += 1;
    receiver.maxInFlight = Math.max(receiver.maxInFlight, inFlight);
    res.on('close', () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const eventId = String(req.headers['x-webhook-event-id'] ?? '');
    received.push({ headers: req.headers, body, eventId, path: req.url ?? '' });
    for (const wake of waiters) wake();
    const reply = queue.shift() ?? receiver.fallback;
    await reply.before?.();
    if (reply.hang) {
      hanging.add(res);
      return;
    }
    await reply.until;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    res.writeHead(reply.status ?? 200, reply.headers ?? {}).end(reply.body ?? 'ok');
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    script: (...replies: Reply[]) => queue.push(...replies),
    waitFor: (count: number, timeoutMs = 30_000) =>
      new Promise<Received[]>((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver got ${received.length} of ${count} requests`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  });
}
