import { createServer } from 'node:net';

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
