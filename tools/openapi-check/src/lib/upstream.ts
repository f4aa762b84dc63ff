import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the validating proxy forwards to: the webhook receiver for `/hooks/<event type>` (it
 * acknowledges every delivery with 200 and keeps its type), a receiver answering `<status>` to
 * whatever reaches `/fail/<status>` directly (not through the proxy), the real server for everything else,
 * passed through byte for byte. One proxy then validates the API traffic and the deliveries.
 */
export interface Upstream {
  url: string;
  /** Event types of the deliveries received, in order. */
  received: string[];
  /** The body of the first delivery of each event type, parsed. */
  bodies: Map<string, unknown>;
  /** Resolves once a delivery of every given type has arrived. */
  waitFor(types: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Starts the upstream on loopback; `server` is the real server's base address. */
export async function startUpstream(server: string): Promise<Upstream> {
  const received: string[] = [];
  const bodies = new Map<string, unknown>();
  const waiting: Array<() => void> = [];
  const http = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/fail/')) {
      req.resume();
      req.on('end', () => res.writeHead(Number(url.slice('/fail/'.length)) || 500).end());
      return;
    }
    if (url.startsWith('/hooks/')) {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const type = decodeURIComponent(url.slice('/hooks/'.length));
        received.push(type);
        if (!bodies.has(type)) bodies.set(type, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        for (const wake of waiting.splice(0)) wake();
        res.writeHead(200).end();
      });
      return;
    }
    const forward = request(server + url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    bodies,
    waitFor: async (types) => {
      while (!types.every((type) => received.includes(type))) {
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
