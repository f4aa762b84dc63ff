import type { ServerResponse } from 'node:http';
import { etagMatches } from '@customer-api/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import {
  apiError,
  type FakeServer,
  json,
  notModified,
  type RecordedRequest,
  startServer,
} from '../test/fake-server.js';
import { getEtag } from './conditional.js';
import { NotFoundError, PreconditionFailedError } from './errors.js';
import { getRequestId } from './request.js';
import { isRetryable } from './retry.js';

const FAST = { initialDelayMs: 1, maxDelayMs: 2 };
const page = (version: number) => ({ pageId: 'page_1', title: `v${version}` });
const tag = (version: number) => `"tag-of-version-${version}-xxxxxx"`;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: (req: RecordedRequest, res: ServerResponse) => void) {
  server = await startServer((req, res) => handler(req, res));
  return server;
}

/**
 * Pages at version `state.version` (one per path), answering conditional reads as the server does:
 * 304 with the same tag when `If-None-Match` names the current one.
 */
function pagesServer(state: { version: number }) {
  return serve((req, res) => {
    if (req.method !== 'GET' || req.url.startsWith('/v0/pages?')) {
      json(res, 200, { ...page(state.version), archived: true }, { etag: tag(state.version + 1) });
      return;
    }
    if (req.url.includes('missing')) return apiError(res, 'NOT_FOUND');
    const current = tag(state.version);
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch && etagMatches(ifNoneMatch, current, 'weak')) return notModified(res, current);
    json(res, 200, page(state.version), { etag: current });
  });
}

const getPage = { params: { page_id: 'page_1' } };

describe('ETags of results', () => {
  it('gives the tag of a read and of a write, on the result and withResponse, out of the JSON', async () => {
    const s = await pagesServer({ version: 1 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k' });
    const read = await client.getPage(getPage);
    expect(getEtag(read)).toBe(tag(1));
    expect(getRequestId(read)).toBe('req_200');
    expect(JSON.stringify(read)).toBe(JSON.stringify(page(1)));
    expect(getEtag({ ...read })).toBeUndefined();
    const written = await client.withResponse.archivePage(getPage, { ifMatch: getEtag(read) as string });
    expect(written).toMatchObject({ status: 200, etag: tag(2), fromCache: false });
    expect(getEtag(written.data)).toBe(tag(2));
  });

  it('has no tag where the answer carries none', async () => {
    const s = await serve((_req, res) => json(res, 200, { items: [], hasMore: false, nextCursor: null }));
    const client = createClient({ baseUrl: s.url, apiKey: 'k' });
    const response = await client.withResponse.listPages();
    expect(response.etag).toBeUndefined();
    expect(getEtag(response.data)).toBeUndefined();
    expect(getEtag(undefined)).toBeUndefined();
  });
});

describe('ifMatch', () => {
  it('sends If-Match; a stale tag is a PreconditionFailedError, never retried', async () => {
    const s = await serve((_req, res) =>
      apiError(res, 'PRECONDITION_FAILED', { headers: { 'retry-after': '1' } }),
    );
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 3, backoff: FAST });
    const call = client.updateTopic({ params: { topic_id: 't' }, body: { title: 'x' } }, { ifMatch: tag(1) });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(error).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED', title: 'Precondition Failed' });
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]?.headers['if-match']).toBe(tag(1));
    expect(isRetryable(error, true)).toBe(false);
  });

  it('maps a bare 412 by its status', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(412);
      res.end();
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 2, backoff: FAST });
    const call = client.deletePage(getPage, { ifMatch: tag(1) });
    await expect(call).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(s.requests).toHaveLength(1);
  });

  it('sends nothing when ifMatch is named without a tag, or on an operation without one', async () => {
    const s = await pagesServer({ version: 1 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k' });
    const copy = { ...(await client.getPage(getPage)) };
    await expect(client.archivePage(getPage, { ifMatch: getEtag(copy) as string })).rejects.toThrow(
      /archivePage: ifMatch is undefined/,
    );
    const untyped = client.getPage as (args: unknown, options: unknown) => Promise<unknown>;
    await expect(untyped(getPage, { ifMatch: tag(1) })).rejects.toThrow(/getPage takes no ifMatch/);
    const list = client.listPages as (args: unknown, options: unknown) => Promise<unknown>;
    await expect(list({}, { ifNoneMatch: tag(1) })).rejects.toThrow(/listPages takes no ifNoneMatch/);
    expect(s.requests).toHaveLength(1);
  });
});

describe('ifNoneMatch without the cache', () => {
  it('resolves to undefined on 304, a success that is not retried', async () => {
    const s = await pagesServer({ version: 1 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 2, backoff: FAST });
    expect(await client.getPage(getPage, { ifNoneMatch: tag(1) })).toBeUndefined();
    const response = await client.withResponse.getPage(getPage, { ifNoneMatch: `${tag(0)}, ${tag(1)}` });
    expect(response).toMatchObject({ status: 304, data: undefined, etag: tag(1), fromCache: false });
    expect(s.requests.map((r) => r.headers['if-none-match'])).toEqual([tag(1), `${tag(0)}, ${tag(1)}`]);
  });

  it('resolves to the new body when the tag is stale, and reads plainly when it is undefined', async () => {
    const s = await pagesServer({ version: 2 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k' });
    expect(await client.getPage(getPage, { ifNoneMatch: tag(1) })).toEqual(page(2));
    expect(await client.getPage(getPage, { ifNoneMatch: undefined })).toEqual(page(2));
    expect(s.requests[1]?.headers['if-none-match']).toBeUndefined();
  });
});

describe('etagCache', () => {
  it('is off by default', async () => {
    const s = await pagesServer({ version: 1 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k' });
    await client.getPage(getPage);
    await client.getPage(getPage);
    expect(s.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined]);
  });

  it('returns a fresh copy of the cached body on 304, and the new body once the resource changed', async () => {
    const state = { version: 1 };
    const s = await pagesServer(state);
    const client = createClient({ baseUrl: s.url, apiKey: 'k', etagCache: true });
    const first = await client.getPage(getPage);
    first.title = 'changed by the caller';
    const second = await client.withResponse.getPage(getPage);
    expect(second).toMatchObject({ status: 304, fromCache: true, etag: tag(1), data: page(1) });
    expect(getEtag(second.data)).toBe(tag(1));
    expect(getRequestId(second.data)).toBe('req_304');
    state.version = 2;
    const third = await client.withResponse.getPage(getPage);
    expect(third).toMatchObject({ status: 200, fromCache: false, etag: tag(2), data: page(2) });
    expect(await client.getPage(getPage)).toEqual(page(2));
    expect(s.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, tag(1), tag(1), tag(2)]);
    expect(s.requests.map((r) => r.url)).toEqual(Array(4).fill('/v0/pages/page_1'));
  });

  it('never carries writes or lists, and lets a call’s own ifNoneMatch bypass it', async () => {
    const s = await pagesServer({ version: 1 });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', etagCache: true });
    await client.getPage(getPage);
    await client.archivePage(getPage);
    await client.archivePage(getPage);
    await client.listPages({ query: { limit: 1 } });
    await client.listPages({ query: { limit: 1 } });
    expect(await client.getPage(getPage, { ifNoneMatch: tag(1) })).toBeUndefined();
    expect(await client.getPage(getPage)).toEqual(page(1));
    const sent = s.requests.map((r) => [r.method, r.headers['if-none-match']]);
    expect(sent).toEqual([
      ['GET', undefined],
      ['POST', undefined],
      ['POST', undefined],
      ['GET', undefined],
      ['GET', undefined],
      ['GET', tag(1)],
      ['GET', tag(1)],
    ]);
  });

  it('keys entries by URL, and forgets a resource that is gone', async () => {
    const s = await serve((req, res) => {
      if (req.url.includes('missing') && req.headers['if-none-match']) return apiError(res, 'NOT_FOUND');
      if (req.headers['if-none-match']) return notModified(res, req.headers['if-none-match'] as string);
      json(res, 200, { url: req.url }, { etag: `"${req.url.length}"` });
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', etagCache: true });
    const messages = (audience_id: string) =>
      client.getAudienceMessages({ params: { page_id: 'p', audience_id } });
    await messages('a');
    await messages('b');
    expect(await messages('b')).toEqual({ url: '/v0/pages/p/audiences/b/messages' });
    const gone = { params: { page_id: 'missing' } };
    await client.getPage(gone);
    await expect(client.getPage(gone)).rejects.toBeInstanceOf(NotFoundError);
    await client.getPage(gone);
    expect(s.requests.map((r) => r.headers['if-none-match'] !== undefined)).toEqual([
      false,
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('keeps at most maxEntries resources, dropping the least recently used', async () => {
    const s = await serve((req, res) => {
      if (req.headers['if-none-match']) return notModified(res, req.headers['if-none-match'] as string);
      json(res, 200, { url: req.url }, { etag: '"t"' });
    });
    const client = createClient({ baseUrl: s.url, apiKey: 'k', etagCache: { maxEntries: 2 } });
    const read = (id: string) => client.getPage({ params: { page_id: id } });
    await read('a');
    await read('b');
    await read('a');
    await read('c');
    await read('b');
    await read('a');
    expect(s.requests.map((r) => `${r.url.slice(-1)}${r.headers['if-none-match'] ? '304' : ''}`)).toEqual([
      'a',
      'b',
      'a304',
      'c',
      'b',
      'a',
    ]);
    expect(() => createClient({ apiKey: 'k', etagCache: { maxEntries: 0 } })).toThrow(RangeError);
  });
});
