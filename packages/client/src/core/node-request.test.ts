import type { ServerResponse } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import { type FakeServer, json, startServer } from '../test/fake-server.js';
import { ConnectionError } from './errors.js';

// The Node entry point sends JSON calls with undici's request API, not fetch: what fetch did on
// its own (content codings, redirects) must still happen.
const PAGE = { pageId: 'page_1', name: 'Spring launch' };

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Parameters<typeof startServer>[0]) {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function encoded(res: ServerResponse, coding: string, bytes: Buffer) {
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-encoding': coding,
    'x-request-id': 'req_1',
  });
  res.end(bytes);
}

describe('content codings', () => {
  it('asks for gzip and deflate as fetch does, and decodes gzip, deflate (zlib or raw), br and stacked codings', async () => {
    const text = Buffer.from(JSON.stringify(PAGE));
    const bodies: Array<[string, Buffer]> = [
      ['gzip', gzipSync(text)],
      ['x-gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['deflate', deflateRawSync(text)],
      ['br', brotliCompressSync(text)],
      ['deflate, gzip', gzipSync(deflateSync(text))],
    ];
    const s = await serve((_req, res, i) => {
      const [coding, bytes] = bodies[i] ?? ['', text];
      encoded(res, coding, bytes);
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0 });
    for (const [coding] of bodies) {
      const result = await client.withResponse.getPage({ params: { page_id: 'page_1' } });
      expect(result.data, coding).toEqual(PAGE);
      expect(result.requestId).toBe('req_1');
    }
    expect(s.requests.map((req) => req.headers['accept-encoding'])).toEqual(
      bodies.map(() => 'gzip, deflate'),
    );
    await client.close();
  });

  it("keeps the caller's accept-encoding and passes a body in an unknown coding through as it came", async () => {
    const s = await serve((_req, res) => encoded(res, 'x-unknown', Buffer.from(JSON.stringify(PAGE))));
    const client = createClient({ baseUrl: s.url, apiKey: 'k', headers: { 'Accept-Encoding': 'identity' } });
    expect(await client.getPage({ params: { page_id: 'page_1' } })).toEqual(PAGE);
    expect(s.requests[0]?.headers['accept-encoding']).toBe('identity');
    await client.close();
  });

  it('fails a body that does not decode as a ConnectionError, as fetch did', async () => {
    const s = await serve((_req, res) => encoded(res, 'gzip', Buffer.from('not gzip at all')));
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0 });
    await expect(client.getPage({ params: { page_id: 'page_1' } })).rejects.toBeInstanceOf(ConnectionError);
    await client.close();
  });
});

describe('redirects', () => {
  it('follows 307 with the same method and body, and 303 after a POST as a GET without body or body headers', async () => {
    const s = await serve((req, res, i) => {
      if (i === 0) {
        res.writeHead(307, { location: '/v0/pages?second' });
        res.end('moved');
      } else if (i === 1) {
        res.writeHead(303, { location: `/v0/pages/page_1?from=${req.method}` });
        res.end();
      } else {
        json(res, 200, PAGE);
      }
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0 });
    const body = { name: 'Spring launch', title: 'Acme', pageContext: 'Freight.', brandId: 'brand_acme' };
    expect(await client.createPage({ body: { ...body, pageType: 'inbound' } })).toEqual(PAGE);
    const [first, second, third] = s.requests;
    expect([first?.method, second?.method, third?.method]).toEqual(['POST', 'POST', 'GET']);
    expect(second?.url).toBe('/v0/pages?second');
    expect(second?.body).toBe(first?.body);
    expect(JSON.parse(second?.body ?? '')).toMatchObject({ name: 'Spring launch' });
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect(third?.url).toBe('/v0/pages/page_1?from=POST');
    expect(third?.body).toBe('');
    expect(third?.headers['content-type']).toBeUndefined();
    expect(third?.headers['x-api-key']).toBe('k');
    await client.close();
  });

  it('sends neither the API key nor other credentials when a redirect leaves the origin', async () => {
    const other = await serve((_req, res) => json(res, 200, PAGE));
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: `${other.url}/v0/pages/page_1` });
      res.end();
    });
    const client = createClient({
      baseUrl: s.url,
      apiKey: 'k',
      headers: { Authorization: 'Bearer t', Cookie: 'session=1', 'x-trace': 'kept' },
    });
    expect(await client.getPage({ params: { page_id: 'page_1' } })).toEqual(PAGE);
    expect(s.requests[0]?.headers.authorization).toBe('Bearer t');
    expect(s.requests[0]?.headers['x-api-key']).toBe('k');
    const forwarded = other.requests[0]?.headers;
    expect(forwarded?.authorization).toBeUndefined();
    expect(forwarded?.cookie).toBeUndefined();
    expect(forwarded?.['x-api-key']).toBeUndefined();
    expect(forwarded?.['x-trace']).toBe('kept');
    await client.close();
  });

  it('gives up after 20 redirects with a ConnectionError', async () => {
    const s = await serve((req, res) => {
      res.writeHead(301, { location: req.url });
      res.end();
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0 });
    const error = await client.getPage({ params: { page_id: 'page_1' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toMatch(/redirect count exceeded/);
    expect(s.requests).toHaveLength(21);
    await client.close();
  });
});

describe('response headers', () => {
  it('reads repeated headers as Headers does, for hooks, withResponse and the request id', async () => {
    const s = await serve((_req, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      res.setHeader('set-cookie', ['c=1', 'd=2']);
      json(res, 200, PAGE);
    });
    const seen: Headers[] = [];
    const client = createClient({
      baseUrl: s.url,
      apiKey: 'k',
      onResponse: (event) => void seen.push(event.headers),
    });
    const result = await client.withResponse.getPage({ params: { page_id: 'page_1' } });
    expect(result.requestId).toBe('req_200');
    expect(result.headers).toBeInstanceOf(Headers);
    expect(result.headers.get('x-multi')).toBe('a, b');
    expect(result.headers.getSetCookie()).toEqual(['c=1', 'd=2']);
    expect(seen[0]?.get('x-multi')).toBe('a, b');
    expect({ ...result }).toMatchObject({
      status: 200,
      requestId: 'req_200',
      attempts: 1,
      headers: result.headers,
    });
    await client.close();
  });
});
