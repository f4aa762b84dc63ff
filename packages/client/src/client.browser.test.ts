import { contract } from '@customer-api/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client.browser.js';
import { UnexpectedResponseError } from './core/errors.js';
import { type FakeServer, json, startServer } from './test/fake-server.js';

const LOG = {
  accountLogId: 'accountlog_1',
  accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
  source: 'crm',
  type: 'webhook',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const BODY = { source: 'crm', payload: {}, domain: 'example.com' };

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createClient of the browser entry point', () => {
  it('refuses validateResponses: true, which has no schemas to use, and names what to pass', () => {
    expect(() => createClient({ apiKey: 'k', validateResponses: true })).toThrow(
      /validateResponses: contract \(from @customer-api\/contract\)/,
    );
  });

  it('validates against the contract it is given', async () => {
    server = await startServer((_req, res, index) =>
      json(res, 201, index === 0 ? LOG : { ...LOG, source: 42 }),
    );
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'k',
      maxRetries: 0,
      validateResponses: contract,
    });
    await expect(client.createAccountLog({ body: BODY })).resolves.toEqual(LOG);
    await expect(client.createAccountLog({ body: BODY })).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it('returns the body unvalidated by default', async () => {
    server = await startServer((_req, res) => json(res, 201, { ...LOG, source: 42 }));
    const client = createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
    await expect(client.createAccountLog({ body: BODY })).resolves.toMatchObject({ source: 42 });
  });
});
