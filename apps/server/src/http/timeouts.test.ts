import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { TurnQueue } from './turn-queue.js';

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

/**
 * Opens a connection, writes `chunks`, and resolves with what the server sent once it closed. A
 * reset after the server's answer arrived (a byte the client wrote as the server closed) is that
 * close too.
 */
function untilClosed(write: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => write(socket));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' && received !== '' ? resolve(received) : reject(err),
    );
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
      // Once the server answers, the client has nothing more to say.
      socket.on('data', () => clearInterval(trickle));
      socket.on('close', () => clearInterval(trickle));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 (400|408)/);
    expect(answer).toContain('not received completely in time');
  });
});

describe('a burst of connections falling due together', () => {
  it('runs a slice of tasks per turn of the event loop, as long as the budget allows, in order', async () => {
    // Each task takes 0.3 ms of an injected clock; the budget is 1 ms: four tasks per turn.
    let clock = 0;
    const queue = new TurnQueue(1, () => clock);
    let turn = 0;
    const ran: Array<{ task: number; turn: number }> = [];
    for (let task = 0; task < 10; task += 1)
      queue.run(() => {
        clock += 0.3;
        ran.push({ task, turn });
      });
    expect(ran).toHaveLength(0); // nothing within the caller's own turn
    while (ran.length < 10) {
      await new Promise((resolve) => setImmediate(resolve));
      turn += 1;
    }
    expect(ran.map((r) => r.task)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ran.map((r) => r.turn)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2]);
    expect(queue.size).toBe(0);
  });

  it('runs at least one task per turn, and the rest after a task that throws', async () => {
    let clock = 0;
    const queue = new TurnQueue(1, () => clock);
    const ran: number[] = [];
    queue.run(() => {
      clock += 5;
      throw new Error('socket gone');
    });
    queue.run(() => ran.push(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([2]);
  });

  it('runs a lone task at once, and queues once the turn’s budget is spent', async () => {
    let clock = 0;
    const queue = new TurnQueue(1, () => clock);
    const ran: string[] = [];
    queue.runNowOrLater(() => {
      clock += 0.6;
      ran.push('first');
    });
    expect(ran).toEqual(['first']);
    queue.runNowOrLater(() => {
      clock += 0.6;
      ran.push('second');
    });
    expect(ran).toEqual(['first', 'second']);
    queue.runNowOrLater(() => ran.push('third')); // 1.2 ms spent in this turn: later
    queue.runNowOrLater(() => ran.push('fourth'));
    expect(ran).toEqual(['first', 'second']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['first', 'second', 'third', 'fourth']);
    queue.runNowOrLater(() => ran.push('next turn'));
    expect(ran.at(-1)).toBe('next turn');
  });

  it('closes every one of a burst of silent connections', async () => {
    const closed = await Promise.all(Array.from({ length: 300 }, () => untilClosed(() => {})));
    expect(closed).toHaveLength(300);
  });

  it('answers every one of a burst of connections whose headers never finish, once each', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        untilClosed((socket) => socket.write('GET /v0/pages HTTP/1.1\r\nHost: x\r\n')),
      ),
    );
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      expect(answer.match(/HTTP\/1\.1 400/g)).toHaveLength(1);
      expect(answer).toContain('"code":"VALIDATION_ERROR"');
    }
  });
});
