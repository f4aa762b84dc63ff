import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/** What the proxy saw. */
export interface DropCounts {
  /** Responses of a key's first attempt that never reached the client. */
  dropped: number;
  /** Responses marked `Idempotent-Replayed: true` passed to the client. */
  replayed: number;
  /** Requests whose upstream failed (a killed server): the client's connection was cut. */
  upstreamFailures: number;
}

/** An HTTP proxy in front of server processes; see {@link startDroppingProxy}. */
export interface DroppingProxy {
  url: string;
  counts: DropCounts;
  close(): Promise<void>;
}

/**
 * Forwards requests round robin to `upstreams`. The first response to each `Idempotency-Key` is
 * read from the server and then thrown away: the client's connection is destroyed instead, as a
 * network blip after the server did the work would. A request whose upstream fails is cut the
 * same way. Everything else passes through unchanged.
 */
export async function startDroppingProxy(upstreams: string[]): Promise<DroppingProxy> {
  const pools = upstreams.map((url) => new Pool(url, { connections: 32, pipelining: 1 }));
  const seen = new Set<string>();
  const counts: DropCounts = { dropped: 0, replayed: 0, upstreamFailures: 0 };
  let next = 0;
  const server = createServer((req, res) => {
    const pool = pools[next++ % pools.length] as Pool;
    void forward(pool, req, res).catch(() => {
      counts.upstreamFailures += 1;
      res.destroy();
    });
  });

  async function forward(pool: Pool, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const upstream = await pool.request({
      method: req.method as 'POST',
      path: req.url ?? '/',
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : null,
    });
    const body = Buffer.from(await upstream.body.arrayBuffer());
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && !seen.has(key)) {
      seen.add(key);
      counts.dropped += 1;
      res.destroy();
      return;
    }
    if (upstream.headers['idempotent-replayed'] === 'true') counts.replayed += 1;
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && name !== 'connection' && name !== 'keep-alive') out[name] = value;
    }
    res.writeHead(upstream.statusCode, out).end(body);
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(pools.map((pool) => pool.destroy()));
    },
  };
}
