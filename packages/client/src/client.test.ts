import { JSON_OPERATION_NAMES, OPERATION_NAMES } from '@customer-api/contract';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import { getRequestId } from './core/request.js';
import { apiError, type FakeServer, json, startServer } from './test/fake-server.js';

const ACCOUNT_ID = 'account_01jd4x3k5n8q2r6t9v0w1y2z3a';
const LOG = {
  accountLogId: 'accountlog_1',
  accountId: ACCOUNT_ID,
  source: 'crm',
  type: 'webhook',
  createdAt: '2026-01-01T00:00:00.000Z',
};

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

async function serve(handler: Parameters<typeof startServer>[0]) {
  server = await startServer(handler);
  return { server, client: createClient({ baseUrl: server.url, apiKey: 'key_test', maxRetries: 0 }) };
}

describe('createClient', () => {
  it('has one method and one withResponse method per JSON operation of the contract', () => {
    const client = createClient({ apiKey: 'k' });
    expect(JSON_OPERATION_NAMES.length).toBeGreaterThan(30);
    for (const name of JSON_OPERATION_NAMES) {
      expect(typeof client[name], name).toBe('function');
      expect(typeof client.withResponse[name], name).toBe('function');
    }
  });

  it('uploads with a method of its own and leaves downloads to the signed links', () => {
    const client = createClient({ apiKey: 'k' });
    const bytes = OPERATION_NAMES.filter((name) => !(JSON_OPERATION_NAMES as string[]).includes(name));
    expect(bytes).toEqual([
      'putAssetContent',
      'putAssetPreview',
      'downloadAssetContent',
      'downloadAssetPreview',
    ]);
    expect(client.putAssetContent.length).toBe(3);
    expect(client.putAssetPreview.length).toBe(3);
    expect('downloadAssetContent' in client).toBe(false);
    expect('putAssetContent' in client.withResponse).toBe(false);
  });

  it('reads CUSTOMER_API_BASE_URL and CUSTOMER_API_KEY when no options are given', async () => {
    const { server: s } = await serve((_req, res) => json(res, 200, { found: false, interactions: [] }));
    vi.stubEnv('CUSTOMER_API_BASE_URL', s.url);
    vi.stubEnv('CUSTOMER_API_KEY', 'key_from_env');
    const client = createClient();
    expect(client.baseUrl).toBe(s.url);
    await client.getAudienceSessionInteractions({ params: { audience_session_id: 'session_1' } });
    expect(s.requests[0]?.headers['x-api-key']).toBe('key_from_env');
  });

  it('defaults to http://127.0.0.1:3000 and refuses to start without an API key', () => {
    vi.stubEnv('CUSTOMER_API_BASE_URL', undefined);
    vi.stubEnv('CUSTOMER_API_KEY', undefined);
    expect(createClient({ apiKey: 'k' }).baseUrl).toBe('http://127.0.0.1:3000');
    expect(() => createClient()).toThrow(/CUSTOMER_API_KEY/);
    expect(() => createClient({ apiKey: 'k', timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createClient({ apiKey: 'k', maxRetries: -1 })).toThrow(RangeError);
    expect(() => createClient({ apiKey: 'k', baseUrl: 'not a url' })).toThrow(/baseUrl/);
  });
});

describe('requests', () => {
  it('sends GETs with the key, encoded path parameters and the query string, without a body', async () => {
    const { server: s, client } = await serve((_req, res) =>
      json(res, 200, { items: [], hasMore: false, nextCursor: null, totalCount: 0 }),
    );
    await client.listAccountActivity({
      params: { account_id: 'a/b c' },
      query: { limit: 5, includeDeleted: true, cursor: 'c 1' },
    });
    const req = s.requests[0];
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/v0/accounts/a%2Fb%20c/activity?limit=5&includeDeleted=true&cursor=c%201');
    expect(req?.headers['x-api-key']).toBe('key_test');
    expect(req?.headers['user-agent']).toMatch(/^customer-api-client\/\S+ node\/v\d+/);
    expect(req?.headers['content-type']).toBeUndefined();
    expect(req?.body).toBe('');
  });

  it('sends restores an empty JSON object and DELETEs no body', async () => {
    const page = { pageId: 'page_1' };
    const { server: s, client } = await serve((_req, res) => json(res, 200, page));
    await client.restorePage({ params: { page_id: 'page_1' } });
    await client.deletePage({ params: { page_id: 'page_1' } });
    expect(s.requests.map((r) => [r.method, r.url, r.body, r.headers['content-type']])).toEqual([
      ['POST', '/v0/pages/page_1/restore', '{}', 'application/json'],
      ['DELETE', '/v0/pages/page_1', '', undefined],
    ]);
  });

  it('sends the caller’s body as JSON and keeps a caller-given idempotency key', async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 201, LOG));
    await client.createAccountLog({
      body: { source: 'crm', payload: { a: 1 }, accountId: ACCOUNT_ID, idempotencyKey: 'mine' },
    });
    expect(JSON.parse(s.requests[0]?.body ?? '')).toEqual({
      source: 'crm',
      payload: { a: 1 },
      accountId: ACCOUNT_ID,
      idempotencyKey: 'mine',
    });
  });

  it('refuses an empty path parameter before sending anything', async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 200, {}));
    await expect(client.getPage({ params: { page_id: '' } })).rejects.toThrow(/page_id/);
    expect(s.requests).toHaveLength(0);
  });

  it('reuses keep-alive connections across sequential calls', async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 200, { pageId: 'p' }));
    for (let i = 0; i < 20; i++) await client.getPage({ params: { page_id: 'p' } });
    // undici's fetch may send a GET once more when a reused socket closes before its response (an
    // idempotent request, RFC 9110 9.2.2); never twice per call.
    expect(s.requests.length).toBeGreaterThanOrEqual(20);
    expect(s.requests.length).toBeLessThanOrEqual(22);
    // undici's fetch may open a second socket while the first is finishing; never one per call.
    expect(s.connections).toBeLessThanOrEqual(4);
    await client.close();
  });
});

describe('transport options', () => {
  it('sends through a caller-supplied dispatcher and leaves it open on close()', async () => {
    const { server: s } = await serve((_req, res) => json(res, 200, { pageId: 'p' }));
    const dispatcher = new Agent();
    let dispatched = 0;
    const counting = dispatcher.compose((dispatch) => (opts, handler) => {
      dispatched++;
      return dispatch(opts, handler);
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', dispatcher: counting });
    await client.getPage({ params: { page_id: 'p' } });
    await client.close();
    await client.getPage({ params: { page_id: 'p' } });
    expect(dispatched).toBe(2);
    await dispatcher.close();
  });

  it('close() releases its own pool: later calls fail at once instead of retrying', async () => {
    server = await startServer((_req, res) => json(res, 200, { pageId: 'p' }));
    const s = server;
    // No wait between attempts: a retry would show at once as a second attempt.
    const attempts: number[] = [];
    const client = createClient({
      baseUrl: s.url,
      apiKey: 'k',
      backoff: { initialDelayMs: 0, maxDelayMs: 0 },
      onRequest: ({ attempt }) => {
        attempts.push(attempt);
      },
    });
    await client.getPage({ params: { page_id: 'p' } });
    await client.close();
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ConnectionError',
      errno: expect.stringMatching(/^UND_ERR_(CLOSED|DESTROYED)$/),
    });
    expect(attempts).toEqual([1, 1]);
    expect(s.requests).toHaveLength(1);
  });

  it('uses a custom fetch, e.g. a tracing wrapper around the global one', async () => {
    const { server: s } = await serve((_req, res) => json(res, 200, { pageId: 'p' }));
    const seen: string[] = [];
    const client = createClient({
      baseUrl: `${s.url}/`,
      apiKey: 'k',
      fetch: (url, init) => {
        seen.push(`${init.method} ${url} ${'dispatcher' in init}`);
        return fetch(url, init);
      },
    });
    await expect(client.getPage({ params: { page_id: 'p' } })).resolves.toEqual({ pageId: 'p' });
    expect(seen).toEqual([`GET ${s.url}/v0/pages/p false`]);
  });
});

describe('results', () => {
  it('returns the parsed body with the request id reachable but not enumerable', async () => {
    const { client } = await serve((_req, res) => json(res, 201, LOG, { 'x-request-id': 'req_abc' }));
    const log = await client.createAccountLog({
      body: { source: 'crm', payload: {}, domain: 'example.com' },
    });
    expect(log).toEqual(LOG);
    expect(Object.keys(log)).toEqual(Object.keys(LOG));
    expect(JSON.parse(JSON.stringify(log))).toEqual(LOG);
    expect(getRequestId(log)).toBe('req_abc');
    expect(getRequestId({ ...log })).toBeUndefined();
  });

  it('withResponse exposes status, headers, request id and attempts', async () => {
    const { client } = await serve((_req, res) => json(res, 200, LOG, { 'x-request-id': 'req_replay' }));
    const result = await client.withResponse.createAccountLog({
      body: { source: 'crm', payload: {}, domain: 'example.com', idempotencyKey: 'k1' },
    });
    expect(result).toMatchObject({ status: 200, requestId: 'req_replay', attempts: 1, data: LOG });
    expect(result.headers.get('content-type')).toBe('application/json');
  });

  it('validates success bodies against the contract when asked to', async () => {
    server = await startServer((_req, res) => json(res, 201, { ...LOG, accountId: 'nope' }));
    const strict = createClient({ baseUrl: server.url, apiKey: 'k', validateResponses: true });
    const lax = createClient({ baseUrl: server.url, apiKey: 'k' });
    const args = { body: { source: 'crm', payload: {}, domain: 'example.com' } };
    await expect(strict.createAccountLog(args)).rejects.toMatchObject({
      name: 'UnexpectedResponseError',
      status: 201,
    });
    await expect(lax.createAccountLog(args)).resolves.toMatchObject({ accountId: 'nope' });
  });

  it('rejects a success response that is not JSON', async () => {
    const { client } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy</html>');
    });
    await expect(client.getPage({ params: { page_id: 'p' } })).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      body: '<html>proxy</html>',
    });
  });

  it('maps error responses through the error classes', async () => {
    const { client } = await serve((_req, res) => apiError(res, 'NOT_FOUND', { requestId: 'req_404' }));
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'NotFoundError',
      status: 404,
      code: 'NOT_FOUND',
      requestId: 'req_404',
    });
  });
});
