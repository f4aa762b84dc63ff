import { connect, createServer } from 'node:net';

/**
 * A free TCP port on loopback: bound once on port 0 and released for a child process to bind.
 * Servers here print their configured port, so they cannot listen on 0 themselves.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Whether something accepts a TCP connection at `url`'s host and port (`defaultPort` when the URL
 * names none) within `timeoutMs`: a local PostgreSQL or Redis a test or benchmark may use when it
 * answers. The connection is closed at once.
 */
export async function tcpAnswers(url: string, defaultPort: number, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || defaultPort), hostname);
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
