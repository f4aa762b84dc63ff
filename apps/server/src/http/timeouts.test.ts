import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { BatchedCloser, CLOSES_PER_TURN } from './connection-timeouts.js';

// Short limits so that the test waits for the server's own timers, not for a clock of its own.
const t = useTestApp({
  env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_IDLE_TIMEOUT_MS: '1500' },
});
let port: number;

beforeAll(async () => {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});
afterAll(async () => {
  await t.app.close();
});

/** Opens a connection, writes `chunks`, and resolves with what the server sent once it closed. */
function untilClosed(write: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => write(socket));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('connection timeouts', () => {
  it('closes a connection that never sends a request (at the headers timeout, not the idle one)', async () => {
    const opened = Date.now();
    const answer = await untilClosed(() => {});
    if (answer !== '') expect(answer).toContain('not received completely in time');
    // The idle limit is 1.5 s; Node's own headers timeout never starts without a request line.
    expect(Date.now() - opened).toBeLessThan(1500);
  });

  it('answers headers that never finish with the error object and closes', async () => {
    const answer = await untilClosed((socket) => socket.write('GET /v0/pages HTTP/1.1\r\nHost: x\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"VALIDATION_ERROR"');
  });

  it('answers a body trickled slower than the request timeout allows and closes', async () => {
    const answer = await untilClosed((socket) => {
      socket.write(
        `POST /v0/account_logs HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.tenant.apiKey}\r\n` +
          'content-type: application/json\r\ncontent-length: 1000\r\n\r\n{',
      );
      // One byte at a time keeps the connection from ever being idle.
      const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
      socket.on('close', () => clearInterval(trickle));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 (400|408)/);
    expect(answer).toContain('not received completely in time');
  });
});

describe('BatchedCloser', () => {
  it('closes sockets that fall due together a batch per turn of the event loop', async () => {
    const closer = new BatchedCloser();
    let turn = 0;
    const closedAt: number[] = [];
    const sockets = Array.from(
      { length: 1000 },
      () => ({ destroy: () => closedAt.push(turn) }) as unknown as Socket,
    );
    for (const socket of sockets) closer.close(socket);
    expect(closedAt).toHaveLength(0); // nothing within the timer's own turn
    while (closedAt.length < sockets.length) {
      await new Promise((resolve) => setImmediate(resolve));
      turn += 1;
    }
    const perTurn = new Map<number, number>();
    for (const at of closedAt) perTurn.set(at, (perTurn.get(at) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBe(CLOSES_PER_TURN);
    expect(perTurn.size).toBe(Math.ceil(1000 / CLOSES_PER_TURN));
  });

  it('closes every one of a burst of silent connections', async () => {
    const closed = await Promise.all(Array.from({ length: 300 }, () => untilClosed(() => {})));
    expect(closed).toHaveLength(300);
  });
});
