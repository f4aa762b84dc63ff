import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import { type FakeServer, json, startServer } from '../test/fake-server.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the query string a call sends', () => {
  it('writes arrays, objects, dates and null as qs does, and leaves undefined out', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { items: [], hasMore: false, nextCursor: null, totalCount: 0 }),
    );
    const client = createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    const query = {
      limit: 2,
      cursor: undefined,
      tags: ['a b', 'c&d'],
      range: { from: new Date(Date.UTC(2026, 0, 2)), to: null },
    };
    await client.listPages({ query } as never);
    expect(server.requests[0]?.url).toBe(
      '/v0/pages?limit=2&tags%5B0%5D=a%20b&tags%5B1%5D=c%26d&range%5Bfrom%5D=2026-01-02T00%3A00%3A00.000Z&range%5Bto%5D=',
    );
  });

  it('sends no question mark when nothing is set', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, { items: [], hasMore: false, nextCursor: null, totalCount: 0 }),
    );
    const client = createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    await client.listPages({ query: { cursor: undefined } });
    expect(server.requests[0]?.url).toBe('/v0/pages');
  });
});
