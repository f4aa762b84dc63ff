import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort, tcpAnswers } from './port.js';

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

  it('never returns a port of the ephemeral range, where outgoing connections may take it', async () => {
    const [low, high] = ephemeralRange();
    expect(low).toBeLessThanOrEqual(high);
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    for (const port of ports) expect(port < low || port > high).toBe(true);
  });
});

describe('tcpAnswers', () => {
  it('is true for a listening port and false once nothing listens there', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    expect(await tcpAnswers(`redis://127.0.0.1:${port}/7`, 6379)).toBe(true);
    server.close();
    await once(server, 'close');
    expect(await tcpAnswers(`redis://127.0.0.1:${port}`, 6379)).toBe(false);
  });

  it('takes the default port when the URL names none', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    expect(await tcpAnswers('redis://127.0.0.1', port)).toBe(true);
    server.close();
    await once(server, 'close');
  });
});
