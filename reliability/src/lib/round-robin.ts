import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';

/** A round-robin reverse proxy (the load balancer); an unreachable upstream is answered 502. */
export async function roundRobin(upstreams: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const pools = upstreams.map((url) => new Pool(url, { connections: 32 }));
  let next = 0;
  const server: Server = createServer(async (req, res) => {
    const upstream = pools[next++ % pools.length] as Pool;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { host: _host, connection: _connection, ...headers } = req.headers;
      const answer = await upstream.request({
        method: req.method as 'GET',
        path: req.url ?? '/',
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : null,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && name !== 'connection' && name !== 'keep-alive') out[name] = value;
      }
      res.writeHead(answer.statusCode, out).end(body);
    } catch {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(pools.map((p) => p.destroy()));
    },
  };
}
