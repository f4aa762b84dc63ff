import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback webhook receiver that records event ids and can fail or go away for a while. */
export interface Receiver {
  url: string;
  /** Deliveries per version id (`payload.versionId`). */
  versions: Map<string, number>;
  requests: number;
  /** While set, every delivery is answered with this status. */
  failWith: number | undefined;
  /** Stops listening (connections refused) until {@link Receiver.up}. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on `host` (default 127.0.0.1); it keeps its port across down/up. */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  let server: Server | undefined;
  let port = 0;
  const receiver: Receiver = {
    url: '',
    versions: new Map(),
    requests: 0,
    failWith: undefined,
    down: async () => {
      if (!server) return;
      const closing = server;
      server = undefined;
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    },
    up: async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        req.on('end', () => {
          receiver.requests += 1;
          if (receiver.failWith) {
            res.writeHead(receiver.failWith).end();
            return;
          }
          const versionId = (JSON.parse(body) as { payload?: { versionId?: string } }).payload?.versionId;
          if (versionId) receiver.versions.set(versionId, (receiver.versions.get(versionId) ?? 0) + 1);
          res.writeHead(204).end();
        });
      });
      server.listen(port, host);
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
      receiver.url = `http://${host}:${port}/hook`;
    },
    close: () => receiver.down(),
  };
  await receiver.up();
  return receiver;
}
