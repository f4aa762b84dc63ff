import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, textOf } from './test/connect.js';

// Issue 22: one client call per tool call. The client sends a fresh Idempotency-Key per call and
// keeps it across its own retries, so two identical tool calls make two pages and a call whose
// response was lost (a proxy's 502 after the API stored the page) makes one.
const api = inject('api');
const run = Math.random().toString(36).slice(2, 8);
let proxy: Server;
let mcp: Connected;
const keys: string[] = [];
let loseNextCreate = false;

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && typeof value === 'string') out[name] = value;
  }
  return out;
}

beforeAll(async () => {
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const upstream = await fetch(`${api.baseUrl}${req.url}`, {
      method: req.method,
      headers: forwardable(req.headers),
      body: hasBody ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    if (req.method === 'POST' && req.url?.endsWith('/pages')) {
      keys.push(String(req.headers['idempotency-key']));
      if (loseNextCreate) {
        loseNextCreate = false;
        res.writeHead(502).end();
        return;
      }
    }
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    });
    res.end(body);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const { port } = proxy.address() as AddressInfo;
  mcp = await connectInMemory({ baseUrl: `http://127.0.0.1:${port}`, apiKey: api.apiKey, maxRetries: 2 });
});
afterAll(async () => {
  await mcp.close();
  proxy.close();
  await once(proxy, 'close');
});

const args = (name: string) => ({ name, title: 'T', pageContext: 'c', brandId: 'b', pageType: 'custom' });

async function pagesNamed(name: string): Promise<number> {
  const result = await mcp.call('list_pages', { limit: 100, fields: ['name'] });
  return (result.structuredContent as { items: { name: string }[] }).items.filter((p) => p.name === name)
    .length;
}

describe('idempotency keys of create tools', () => {
  it('makes two pages of two identical calls, each with its own key', async () => {
    const name = `twice-${run}`;
    keys.length = 0;
    for (let i = 0; i < 2; i++) expect((await mcp.call('create_page', args(name))).isError).toBeFalsy();
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
    expect(await pagesNamed(name)).toBe(2);
  });

  it('makes one page of a call whose response was lost: the retry repeats the key', async () => {
    const name = `lost-${run}`;
    keys.length = 0;
    loseNextCreate = true;
    const result = await mcp.call('create_page', args(name));
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await pagesNamed(name)).toBe(1);
  });
});
