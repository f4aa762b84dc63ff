import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import { apiError, type FakeServer, json, startServer } from '../test/fake-server.js';

const TOTAL = 250;
const ACCOUNTS = Array.from({ length: TOTAL }, (_, i) => ({
  accountId: `account_${String(i).padStart(26, '0')}`,
  domain: `d${i}.example`,
  name: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  latestActivityAt: null,
  linkedPersonsCount: 0,
}));

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A collection server paging with opaque cursors, like the real one (default limit 20, max 100). */
async function collection(options: { failOnce?: number; loopCursor?: boolean } = {}) {
  let failed = false;
  server = await startServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (options.failOnce !== undefined && url.searchParams.get('cursor') && !failed) {
      failed = true;
      apiError(res, 'SERVICE_UNAVAILABLE', { headers: { 'retry-after': '0' } });
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const cursor = url.searchParams.get('cursor');
    const offset = cursor && !options.loopCursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    const items = ACCOUNTS.slice(offset, offset + limit);
    const next = offset + limit;
    const hasMore = options.loopCursor === true || next < TOTAL;
    const nextCursor = options.loopCursor ? 'same' : Buffer.from(String(next)).toString('base64url');
    json(res, 200, { items, hasMore, nextCursor: hasMore ? nextCursor : null, totalCount: TOTAL });
  });
  return { client: createClient({ baseUrl: server.url, apiKey: 'k' }), requests: server.requests };
}

describe('iterate', () => {
  it('yields all 250 items in order across pages with the caller’s limit and filters', async () => {
    const { client, requests } = await collection();
    const ids: string[] = [];
    for await (const account of client.iterate('listAccounts', {
      query: { limit: 100, includeEmptyOnly: true },
    })) {
      ids.push(account.accountId);
    }
    expect(ids).toEqual(ACCOUNTS.map((a) => a.accountId));
    expect(requests.map((r) => r.url)).toEqual([
      '/v0/accounts?limit=100&includeEmptyOnly=true',
      `/v0/accounts?limit=100&includeEmptyOnly=true&cursor=${Buffer.from('100').toString('base64url')}`,
      `/v0/accounts?limit=100&includeEmptyOnly=true&cursor=${Buffer.from('200').toString('base64url')}`,
    ]);
  });

  it('uses the server’s default page size when no limit is given', async () => {
    const { client, requests } = await collection();
    let count = 0;
    for await (const _ of client.iterate('listAccounts')) count++;
    expect(count).toBe(TOTAL);
    expect(requests).toHaveLength(13);
  });

  it('stops fetching when the loop breaks', async () => {
    const { client, requests } = await collection();
    let seen = 0;
    for await (const _ of client.iterate('listAccounts', { query: { limit: 10 } })) {
      if (++seen === 15) break;
    }
    expect(requests).toHaveLength(2);
  });

  it('retries a failed page without restarting the walk', async () => {
    const { client, requests } = await collection({ failOnce: 1 });
    let count = 0;
    for await (const _ of client.iterate('listAccounts', { query: { limit: 100 } })) count++;
    expect(count).toBe(TOTAL);
    expect(requests).toHaveLength(4);
  });

  it('fills path parameters on every page', async () => {
    const { client, requests } = await collection();
    let count = 0;
    for await (const _ of client.iterate('listAccountActivity', { params: { account_id: 'account_x' } }))
      count++;
    expect(count).toBe(TOTAL);
    expect(requests.every((r) => r.url.startsWith('/v0/accounts/account_x/activity'))).toBe(true);
  });

  it('rejects a non-paginated operation at run time too', async () => {
    const { client } = await collection();
    const iterate = client.iterate as (name: string, args?: unknown) => AsyncIterableIterator<unknown>;
    await expect(iterate('getPage', { params: { page_id: 'p' } }).next()).rejects.toThrow(/not a paginated/);
  });

  it('fails instead of looping forever when the server repeats a cursor', async () => {
    const { client, requests } = await collection({ loopCursor: true });
    const walk = async () => {
      for await (const _ of client.iterate('listAccounts', { query: { limit: 100 } })) {
      }
    };
    await expect(walk()).rejects.toThrow(/twice/);
    expect(requests).toHaveLength(2);
  });
});

describe('pages', () => {
  it('yields whole envelopes and can resume from a cursor', async () => {
    const { client } = await collection();
    const sizes: number[] = [];
    let last: string | null = null;
    for await (const page of client.pages('listAccounts', { query: { limit: 100 } })) {
      sizes.push(page.items.length);
      expect(page.totalCount).toBe(TOTAL);
      last = page.nextCursor;
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(last).toBeNull();

    const resumed: number[] = [];
    const cursor = Buffer.from('200').toString('base64url');
    for await (const page of client.pages('listAccounts', { query: { limit: 100, cursor } })) {
      resumed.push(page.items.length);
    }
    expect(resumed).toEqual([50]);
  });
});
