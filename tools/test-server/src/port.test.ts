import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './port.js';

describe('freePort', () => {
  it('returns a port another server can bind on loopback at once', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    expect(server.address()).toMatchObject({ port });
    server.close();
    await once(server, 'close');
  });
});
