import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_CHARS, sendDelivery } from './sender.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver answering every POST with `handle`; its URL. */
async function receiver(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** Collects what reaches the process as an uncaught exception while a test runs. */
function uncaught(): unknown[] {
  const seen: unknown[] = [];
  const listener = (err: unknown) => void seen.push(err);
  process.on('uncaughtException', listener);
  cleanups.push(async () => void process.off('uncaughtException', listener));
  return seen;
}

function agent(): Agent {
  const a = new Agent();
  cleanups.push(() => a.close());
  return a;
}

const send = (url: string) => sendDelivery(agent(), { url, body: '{}', headers: {}, timeoutMs: 5000 });

describe('sendDelivery', () => {
  it('keeps the first 1,024 characters of a body that never ends, and stops reading it without an uncaught error', async () => {
    const seen = uncaught();
    let closed!: Promise<unknown>;
    const url = await receiver((req, res) => {
      closed = once(res, 'close');
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('x'.repeat(3000)); // more than kept, then nothing: the body is never ended
    });
    const outcome = await send(url);
    expect(outcome).toMatchObject({ status: 500, body: 'x'.repeat(MAX_RESPONSE_CHARS), error: null });
    await closed; // the dispatcher let go of the response
    await new Promise((resolve) => setImmediate(resolve)); // where a late stream error would surface
    expect(seen).toEqual([]);
  });

  it('reads a short body whole', async () => {
    const url = await receiver((req, res) => {
      req.resume();
      res.writeHead(200, { 'retry-after': '7' });
      res.end('ok');
    });
    expect(await send(url)).toMatchObject({ status: 200, body: 'ok', retryAfter: '7', error: null });
  });

  it('counts a body cut before its end as a failed attempt, not an outcome', async () => {
    const url = await receiver((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setImmediate(() => res.destroy());
    });
    const outcome = await send(url);
    expect(outcome.status).toBeNull();
    expect(outcome.error).toEqual(expect.any(String));
  });
});
