import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import { apiError, type FakeServer, json, type RecordedRequest, startServer } from '../test/fake-server.js';
import { waits } from '../test/recorded-waits.js';
import { getRequestId } from './request.js';

// Edges of a call a user can see: how long the client waits before each retry, an abort that lands
// between two attempts, the last page of a walk, validated bodies. Complements retry.test.ts,
// paginate.test.ts and client.test.ts.

// The waits between attempts are recorded instead of slept.
vi.mock('./retry.js', async (importOriginal) =>
  (await import('../test/recorded-waits.js')).recordingWaits(await importOriginal()),
);
beforeEach(() => {
  waits.length = 0;
});

const PAGE = { pageId: 'page_1' };
type Step = (res: ServerResponse, req: RecordedRequest) => void;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers request i with steps[i] (the last step repeats). */
async function scripted(steps: Step[]) {
  server = await startServer((req, res, i) => steps[Math.min(i, steps.length - 1)]?.(res, req));
  return server;
}

const ok: Step = (res) => json(res, 200, PAGE);
const unavailable: Step = (res) => apiError(res, 'SERVICE_UNAVAILABLE');

describe('backoff without a server hint', () => {
  it('waits between half and all of initialDelayMs before the first retry, then doubles', async () => {
    const { url, requests } = await scripted([unavailable, unavailable, unavailable, ok]);
    const client = createClient({
      baseUrl: url,
      apiKey: 'k',
      maxRetries: 3,
      backoff: { initialDelayMs: 1_000, maxDelayMs: 60_000 },
    });
    await expect(client.getPage({ params: { page_id: 'p' } })).resolves.toEqual(PAGE);
    expect(requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
    const [first, second, third] = waits as [number, number, number];
    expect(first).toBeGreaterThanOrEqual(500);
    expect(first).toBeLessThanOrEqual(1_000);
    expect(second).toBeGreaterThanOrEqual(1_000);
    expect(second).toBeLessThanOrEqual(2_000);
    expect(third).toBeGreaterThanOrEqual(2_000);
    expect(third).toBeLessThanOrEqual(4_000);
  });

  it('never waits longer than maxDelayMs', async () => {
    const { url } = await scripted([unavailable, unavailable, ok]);
    const client = createClient({
      baseUrl: url,
      apiKey: 'k',
      backoff: { initialDelayMs: 1_000, maxDelayMs: 1_200 },
    });
    await client.getPage({ params: { page_id: 'p' } });
    expect(waits).toHaveLength(2);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1_200);
    expect(waits[1]).toBeGreaterThanOrEqual(600);
  });
});

describe('an abort that lands between two attempts', () => {
  it('rejects with the reason and sends no retry', async () => {
    const { url, requests } = await scripted([unavailable, ok]);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let fetches = 0;
    const client = createClient({
      baseUrl: url,
      apiKey: 'k',
      backoff: { initialDelayMs: 1, maxDelayMs: 1 },
      // The abort comes once the 503 is in: the signal is already aborted when the wait begins.
      fetch: async (input, init) => {
        fetches++;
        const response = await fetch(input, init);
        controller.abort(reason);
        return response;
      },
    });
    await expect(client.getPage({ params: { page_id: 'p' } }, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(fetches).toBe(1);
    expect(requests).toHaveLength(1);
  });
});

describe('the last page of a walk', () => {
  it('ends the walk on hasMore: false even when the server sends a cursor', async () => {
    const { url, requests } = await scripted([
      (res) => json(res, 200, { items: [], hasMore: false, nextCursor: 'stale', totalCount: 0 }),
    ]);
    const client = createClient({ baseUrl: url, apiKey: 'k' });
    const pages = [];
    for await (const page of client.pages('listPages')) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(requests).toHaveLength(1);
  });

  it('ends the walk on a null nextCursor even when hasMore says true', async () => {
    const { url, requests } = await scripted([
      (res) => json(res, 200, { items: [PAGE], hasMore: true, nextCursor: null, totalCount: 1 }),
    ]);
    const client = createClient({ baseUrl: url, apiKey: 'k' });
    const items = [];
    for await (const item of client.iterate('listPages')) items.push(item);
    expect(items).toEqual([PAGE]);
    expect(requests).toHaveLength(1);
  });
});

describe('validateResponses', () => {
  it('returns a body that matches the contract, parsed by its schema', async () => {
    const log = {
      accountLogId: 'accountlog_1',
      accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
      source: 'crm',
      type: 'webhook',
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    const { url } = await scripted([(res) => json(res, 201, log)]);
    const client = createClient({ baseUrl: url, apiKey: 'k', validateResponses: true });
    const result = await client.withResponse.createAccountLog({
      body: { source: 'crm', payload: {}, domain: 'example.com' },
    });
    expect(result).toMatchObject({ status: 201, data: log, requestId: 'req_201' });
  });
});

describe('the request a call sends', () => {
  it('joins a base URL with trailing slashes to the path without doubling them', async () => {
    const { url, requests } = await scripted([ok]);
    const client = createClient({ baseUrl: `${url}//`, apiKey: 'k' });
    await client.getPage({ params: { page_id: 'page 1/2' } });
    expect(requests[0]?.url).toBe('/v0/pages/page%201%2F2');
    expect(requests[0]?.headers.accept).toBe('application/json');
  });

  it('refuses a call without a path parameter before sending anything', async () => {
    const { url, requests } = await scripted([ok]);
    const client = createClient({ baseUrl: url, apiKey: 'k' });
    const getPage = client.getPage as (args?: unknown) => Promise<unknown>;
    for (const args of [undefined, { params: {} }, { params: { page_id: '' } }]) {
      await expect(getPage(args)).rejects.toThrow('Missing path parameter "page_id" for /v0/pages/:page_id');
    }
    expect(requests).toHaveLength(0);
  });

  it('sends no body with a GET, even when one is passed', async () => {
    const { url, requests } = await scripted([ok]);
    const client = createClient({ baseUrl: url, apiKey: 'k' });
    const getPage = client.getPage as (args: unknown) => Promise<unknown>;
    await getPage({ params: { page_id: 'p' }, body: { name: 'x' } });
    expect(requests[0]?.body).toBe('');
    expect(requests[0]?.headers['content-type']).toBeUndefined();
  });

  it('resolves an empty success response to no data', async () => {
    const { url } = await scripted([
      (res) => {
        res.writeHead(200, { 'x-request-id': 'req_empty' });
        res.end();
      },
    ]);
    const client = createClient({ baseUrl: url, apiKey: 'k' });
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result).toMatchObject({ status: 200, data: undefined, requestId: 'req_empty' });
  });
});

describe('getRequestId', () => {
  it('is undefined for values the client did not return', () => {
    for (const value of [undefined, null, 'req_1', 42, true, {}, []])
      expect(getRequestId(value)).toBeUndefined();
  });
});
