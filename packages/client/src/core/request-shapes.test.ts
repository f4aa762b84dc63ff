import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../client.js';
import { apiError, type FakeServer, json, startServer } from '../test/fake-server.js';
import { ValidationError } from './errors.js';
import { getRequestId } from './request.js';

// What a call does with values the typed surface does not produce: a body or a path parameter an
// untyped caller passes, and answers the contract does not describe (an unlisted 2xx status, a
// JSON `null`). Complements request-edges.test.ts and client.test.ts.

const PAGE = { pageId: 'page_1' };

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client on a fake server that answers every request with `answer`. */
async function clientAnswering(answer: (res: ServerResponse) => void, validateResponses = false) {
  server = await startServer((_req, res) => answer(res));
  return {
    client: createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, validateResponses }),
    requests: server.requests,
  };
}

describe('what an untyped caller passes', () => {
  it('sends a body that is not an object as given, for the server to refuse, adding no key to it', async () => {
    const { client, requests } = await clientAnswering((res) => apiError(res, 'VALIDATION_ERROR'));
    const createAccountLog = client.createAccountLog as (args: unknown) => Promise<unknown>;
    await expect(createAccountLog({ body: 'source=crm' })).rejects.toBeInstanceOf(ValidationError);
    await expect(createAccountLog({ body: 42 })).rejects.toBeInstanceOf(ValidationError);
    expect(requests.map((r) => r.body)).toEqual(['"source=crm"', '42']);
    // The header still carries a key: only the body is left as the caller wrote it.
    expect(requests[0]?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('puts a numeric path parameter into the path, zero included', async () => {
    const { client, requests } = await clientAnswering((res) => json(res, 200, PAGE));
    const getPage = client.getPage as (args: unknown) => Promise<unknown>;
    await getPage({ params: { page_id: 7 } });
    await getPage({ params: { page_id: 0 } });
    expect(requests.map((r) => r.url)).toEqual(['/v0/pages/7', '/v0/pages/0']);
  });
});

describe('answers the contract does not describe', () => {
  it('takes every 2xx status as a success, 299 included', async () => {
    const { client } = await clientAnswering((res) => json(res, 299, PAGE));
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result).toMatchObject({ status: 299, data: PAGE, requestId: 'req_299' });
  });

  it('returns a 2xx status the contract lists no schema for unvalidated with validateResponses', async () => {
    const unlisted = { note: 'accepted for later' };
    const { client } = await clientAnswering((res) => json(res, 202, unlisted), true);
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result).toMatchObject({ status: 202, data: unlisted, requestId: 'req_202' });
  });

  it('resolves a JSON null body to null', async () => {
    const { client } = await clientAnswering((res) => json(res, 200, null));
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result).toMatchObject({ status: 200, data: null, requestId: 'req_200' });
    expect(getRequestId(result.data)).toBeUndefined();
  });
});
