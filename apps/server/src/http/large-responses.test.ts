import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { INLINE_RESPONSE_CHARS, JsonStream, jsonFragments, type Lane, toJsonBody } from './json-stream.js';
import { TenantBandwidth } from './tenant-bandwidth.js';

describe('jsonFragments', () => {
  const when = new Date('2026-11-24T00:00:00Z');
  const values: Array<[string, unknown]> = [
    ['a string', 'text "quoted" \u2028 é 🙂'],
    ['numbers and null', [1, -0, 1.5e300, Number.NaN, null]],
    [
      'undefined, functions and symbols',
      { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1] },
    ],
    ['dates and toJSON', { when, nested: { toJSON: (key: string) => `key ${key}` }, list: [when] }],
    [
      'a toJSON that returns undefined',
      { gone: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] },
    ],
    ['an object without prototype', Object.assign(Object.create(null), { x: 1 })],
    [
      'a class instance',
      new (class Point {
        x = 1;
        y = [2];
      })(),
    ],
    ['empty containers', { a: {}, b: [], c: [[]], d: [{}] }],
    ['deep nesting', { a: [{ b: [{ c: { d: [1, { e: 'f' }] } }] }] }],
    [
      'a history',
      {
        conversation: null,
        messages: [{ id: 'm', toolCalls: [{ result: 'x'.repeat(100) }] }],
        pendingChanges: [],
      },
    ],
  ];

  it.each(values)('joins to JSON.stringify for %s, at every depth', (_name, value) => {
    for (const depth of [0, 1, 2, 3, 5])
      expect([...jsonFragments(value, depth)].join('')).toBe(JSON.stringify(value));
  });

  it('opens a body down to its list elements, one fragment each', () => {
    const body = { items: ['a'.repeat(10), 'b'.repeat(10)], hasMore: false };
    expect([...jsonFragments(body, 2)]).toEqual([
      '{',
      '"items":',
      '[',
      '"aaaaaaaaaa"',
      ',',
      '"bbbbbbbbbb"',
      ']',
      ',"hasMore":',
      'false',
      '}',
    ]);
  });
});

describe('toJsonBody', () => {
  const free = (): Lane => ({ ready: Promise.resolve(), spend: () => 0, end: () => undefined });

  it('serialises a small body at once', () => {
    const body = { items: [{ id: 1 }], hasMore: false };
    expect(toJsonBody(body, free)).toBe(JSON.stringify(body));
  });

  it('produces a large body a chunk per turn of the event loop, once its turn has come', async () => {
    const body = {
      items: Array.from({ length: 40 }, (_, i) => ({ i, text: 'ü'.repeat(20_000) })),
      hasMore: false,
    };
    let begin: () => void = () => undefined;
    const turn = new Promise<void>((resolve) => {
      begin = resolve;
    });
    const stream = toJsonBody(body, () => ({ ready: turn, spend: () => 0, end: () => undefined }));
    expect(stream).toBeInstanceOf(JsonStream);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const chunks: Array<{ text: string; turn: number }> = [];
    const read = (async () => {
      for await (const chunk of stream as JsonStream) chunks.push({ text: chunk.toString(), turn: turns });
    })();
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(0); // nothing before the tenant's turn
    begin();
    await read;
    ticking = false;
    expect(chunks.map((c) => c.text).join('')).toBe(JSON.stringify(body));
    // Chunks of 64 K characters, the last element making one a little longer: 800 K in about 10.
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThan(INLINE_RESPONSE_CHARS + 20_100);
    expect(chunks.length).toBeGreaterThanOrEqual(9);
    for (let i = 1; i < chunks.length; i += 1)
      expect(chunks[i]?.turn).toBeGreaterThan(chunks[i - 1]?.turn ?? 0);
    expect((stream as JsonStream).counter.bytes).toBe(Buffer.byteLength(JSON.stringify(body)));
  });

  it('turns the whole body into bytes within a few turns, without waiting for its turn to send', async () => {
    // The payload's objects must not live (and be copied by every young-generation collection)
    // for as long as sending takes: every element is serialised before the tenant's turn comes.
    const serialised = new Set<number>();
    const items = Array.from({ length: 64 }, (_, i) => ({
      toJSON: () => {
        serialised.add(i);
        return { i, text: 'x'.repeat(64 * 1024) };
      },
    }));
    const never = new Promise<void>(() => undefined);
    const stream = toJsonBody({ items }, () => ({ ready: never, spend: () => 0, end: () => undefined }));
    expect(stream).toBeInstanceOf(JsonStream);
    for (let turn = 0; turn < 20 && serialised.size < items.length; turn += 1)
      await new Promise((resolve) => setImmediate(resolve));
    expect(serialised.size).toBe(items.length); // 4 MiB in 16 turns of 256 K
    (stream as JsonStream).destroy();
  });
});

describe('TenantBandwidth', () => {
  const limits = { bytesPerSecond: 1000, burstBytes: 2000, streams: 1, waiting: 1 };

  it("gives a tenant one stream at a time and one place in line, without holding up another tenant's", async () => {
    const bandwidth = new TenantBandwidth(limits, () => 0);
    const order: string[] = [];
    const first = bandwidth.enter('a');
    const second = bandwidth.enter('a');
    expect(bandwidth.enter('a')).toBeUndefined(); // the line is full
    const other = bandwidth.enter('b');
    await other?.ready.then(() => order.push('b1'));
    const secondStarted = second?.ready.then(() => order.push('a2'));
    await first?.ready.then(() => order.push('a1'));
    first?.end();
    first?.end(); // ending twice frees one place only
    await secondStarted;
    const third = bandwidth.enter('a');
    expect(third).toBeDefined();
    expect(bandwidth.enter('a')).toBeUndefined();
    second?.end();
    await third?.ready.then(() => order.push('a3'));
    expect(order).toEqual(['b1', 'a1', 'a2', 'a3']);
  });

  it('paces a tenant to its rate once its burst is spent, and refills while it is quiet', () => {
    let now = 0;
    const bandwidth = new TenantBandwidth(limits, () => now);
    const lane = bandwidth.enter('a');
    expect(lane?.spend(1500)).toBe(0);
    expect(lane?.spend(1000)).toBe(500); // 500 bytes over the bucket: half a second at 1000 B/s
    now = 500;
    expect(lane?.spend(500)).toBe(500);
    lane?.end();
    now = 10_000; // quiet long enough to refill, and no further than the burst
    const next = bandwidth.enter('a');
    expect(next?.spend(2000)).toBe(0);
    expect(next?.spend(1)).toBe(1);
  });
});

const t = useTestApp();

async function largeHistory(messages: number) {
  const page = await t.seed.page(t.tenant);
  const audience = await t.seed.audience(t.tenant, page.pageId);
  const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
  for (let i = 0; i < messages; i += 1) {
    const res = await t.app.inject({
      method: 'POST',
      url: path,
      headers: t.auth(),
      payload: {
        role: 'assistant',
        content: `m${i}`,
        toolCalls: [{ id: 'c', name: 'n', status: 'complete', result: 'é'.repeat(100_000) }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return path;
}

describe('large read responses', () => {
  it('stream a large history with the same JSON, without a Content-Length', async () => {
    const path = await largeHistory(8);
    const res = await t.app.inject({ url: path, headers: t.auth() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = res.json();
    expect(body.messages).toHaveLength(8);
    expect(body.messages[7].toolCalls[0].result).toBe('é'.repeat(100_000));
    expect(res.body).toBe(JSON.stringify(body));
  });

  it('send small reads and errors whole, with their Content-Length', async () => {
    await t.seed.page(t.tenant);
    const list = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(Number(list.headers['content-length'])).toBe(Buffer.byteLength(list.body));
    const missing = await t.app.inject({ url: '/v0/pages/pg_missing', headers: t.auth() });
    expect(missing.statusCode).toBe(404);
    expect(Number(missing.headers['content-length'])).toBe(Buffer.byteLength(missing.body));
  });

  it("free the tenant's turn when the client goes away in the middle", async () => {
    const path = await largeHistory(15);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    expect(address).toContain(String(port));
    // The first reader takes one chunk and hangs up.
    await new Promise<void>((resolve, reject) => {
      const req = request({ port, path, headers: t.auth() }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (error.message.includes('socket hang up') ? resolve() : reject(error)));
      req.end();
    });
    // Were its turn kept, this read would wait for ever.
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ port, path, headers: t.auth() }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
    expect(JSON.parse(body).messages).toHaveLength(15);
  });
});
