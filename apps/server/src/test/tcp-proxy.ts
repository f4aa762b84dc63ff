import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy a test can cut (every connection dropped, nothing accepted) and restore. */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<port> to `target` (`host:port`), on the same port across cut and restore. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const open = async (port: number): Promise<Server> => {
    const server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return server;
  };
  let server: Server | undefined = await open(0);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  return {
    port,
    cut,
    restore: async () => {
      server ??= await open(port);
    },
    close: cut,
  };
}
