import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.js';
import { ConnectionError, CustomerApiError, NotFoundError, TimeoutError } from './core/errors.js';
import type { RequestEvent, ResponseEvent } from './core/exchange.js';
import { apiError, type FakeServer, json, startServer } from './test/fake-server.js';

const PAGE = { pageId: 'page_1' };
const RATE = { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '998', 'x-ratelimit-reset': '42' };

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

function recordingLogger() {
  const lines: Array<{ level: 'debug' | 'warn'; message: string; fields?: Record<string, unknown> }> = [];
  return {
    lines,
    logger: {
      debug: (message: string, fields?: Record<string, unknown>) =>
        lines.push({ level: 'debug', message, fields }),
      warn: (message: string, fields?: Record<string, unknown>) =>
        lines.push({ level: 'warn', message, fields }),
    },
  };
}

describe('logging', () => {
  it('logs each request and response at debug with the API key redacted', async () => {
    server = await startServer((_req, res) => json(res, 200, PAGE, RATE));
    const { lines, logger } = recordingLogger();
    const client = createClient({ baseUrl: server.url, apiKey: 'cak_secret_key', logger, logLevel: 'debug' });
    await client.getPage({ params: { page_id: 'page_1' } }, { headers: { authorization: 'Bearer t0ken' } });
    expect(lines.map((line) => line.message)).toEqual([
      `customer-api: GET ${server.url}/v0/pages/page_1 (getPage, attempt 1)`,
      expect.stringMatching(
        new RegExp(`^customer-api: 200 GET ${server.url}/v0/pages/page_1 \\(\\d+ ms\\)$`),
      ),
    ]);
    expect(lines[0]?.fields?.headers).toMatchObject({
      'x-api-key': '[redacted]',
      authorization: '[redacted]',
    });
    expect(lines[1]?.fields).toMatchObject({
      requestId: 'req_200',
      headers: { 'x-ratelimit-remaining': '998' },
    });
    expect(JSON.stringify(lines)).not.toMatch(/cak_secret_key|t0ken/);
    expect(server.requests[0]?.headers['x-api-key']).toBe('cak_secret_key');
    await client.close();
  });

  it('redacts secrets a server or proxy echoes back in response headers, whatever their case', async () => {
    server = await startServer((_req, res) =>
      json(res, 200, PAGE, { 'X-Api-Key': 'cak_secret_key', 'Set-Cookie': 'session=s3cret' }),
    );
    const { lines, logger } = recordingLogger();
    const client = createClient({ baseUrl: server.url, apiKey: 'cak_secret_key', logger, logLevel: 'debug' });
    await client.getPage({ params: { page_id: 'p' } }, { headers: { Cookie: 'a=b' } });
    expect(lines[1]?.fields?.headers).toMatchObject({
      'x-api-key': '[redacted]',
      'set-cookie': '[redacted]',
    });
    expect(lines[0]?.fields?.headers).toMatchObject({ Cookie: '[redacted]' });
    expect(JSON.stringify(lines)).not.toMatch(/cak_secret_key|s3cret|a=b/);
    await client.close();
  });

  it('turns debug on with CUSTOMER_API_LOG=debug, and stays quiet without it', async () => {
    server = await startServer((_req, res) => json(res, 200, PAGE));
    const quiet = recordingLogger();
    const client = createClient({ baseUrl: server.url, apiKey: 'k', logger: quiet.logger });
    await client.getPage({ params: { page_id: 'p' } });
    expect(quiet.lines).toEqual([]);
    vi.stubEnv('CUSTOMER_API_LOG', 'debug');
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const loud = createClient({ baseUrl: server.url, apiKey: 'k' });
    await loud.getPage({ params: { page_id: 'p' } });
    expect(debug).toHaveBeenCalledTimes(2);
    expect(JSON.stringify(debug.mock.calls)).toContain('[redacted]');
    expect(() => createClient({ apiKey: 'k', logLevel: 'loud' as 'debug' })).toThrow(RangeError);
    await Promise.all([client.close(), loud.close()]);
  });

  it('reads no variable where the runtime has no process (Workers, browsers)', () => {
    vi.stubGlobal('process', undefined);
    try {
      expect(() => createClient()).toThrow(/CUSTOMER_API_KEY/);
      expect(createClient({ apiKey: 'k' }).baseUrl).toBe('http://127.0.0.1:3000');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('hooks', () => {
  it('onRequest sees every attempt and may add headers; onResponse sees statuses and rate-limit headers', async () => {
    server = await startServer((_req, res, index) =>
      index === 0
        ? apiError(res, 'SERVICE_UNAVAILABLE', { headers: { 'retry-after': '0' } })
        : json(res, 200, PAGE, RATE),
    );
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'k',
      onRequest: (event) => {
        requests.push(event);
        event.headers['x-tenant-job'] = `job-${event.attempt}`;
      },
      onResponse: (event) => {
        responses.push(event);
      },
    });
    const result = await client.withResponse.getPage({ params: { page_id: 'page_1' } });
    expect(requests.map((e) => [e.operation, e.method, e.attempt])).toEqual([
      ['getPage', 'GET', 1],
      ['getPage', 'GET', 2],
    ]);
    expect(server.requests.map((r) => r.headers['x-tenant-job'])).toEqual(['job-1', 'job-2']);
    expect(responses.map((e) => [e.status, e.requestId, e.attempt])).toEqual([
      [503, 'req_err_503', 1],
      [200, 'req_200', 2],
    ]);
    expect(responses[1]?.headers.get('x-ratelimit-remaining')).toBe('998');
    expect(result.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(result.attempts).toBe(2);
    await client.close();
  });

  it('rejects the call with the error a hook throws, unchanged, without sending', async () => {
    server = await startServer((_req, res) => json(res, 200, PAGE));
    const refusal = new Error('no writes during the freeze');
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'k',
      onRequest: () => {
        throw refusal;
      },
    });
    await expect(client.getPage({ params: { page_id: 'p' } })).rejects.toBe(refusal);
    expect(server.requests).toHaveLength(0);
    await client.close();
  });
});

describe('deprecation', () => {
  it('warns once per process per operation, naming it, through the logger or console.warn', async () => {
    server = await startServer((req, res) =>
      req.url.startsWith('/v0/pages/')
        ? json(res, 200, PAGE, {
            deprecation: '@1767225600',
            sunset: 'Thu, 31 Dec 2026 00:00:00 GMT',
            link: '<https://example.test/migrate>; rel="deprecation"',
          })
        : json(res, 200, { items: [], hasMore: false, nextCursor: null, totalCount: 0 }),
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const first = createClient({ baseUrl: server.url, apiKey: 'k' });
    const second = createClient({ baseUrl: server.url, apiKey: 'k' });
    await first.getPage({ params: { page_id: 'a' } });
    await first.getPage({ params: { page_id: 'b' } });
    await second.getPage({ params: { page_id: 'c' } });
    await second.listPages();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/getPage is deprecated .*Sunset: Thu, 31 Dec 2026/);
    expect(warn.mock.calls[0]?.[1]).toMatchObject({
      operation: 'getPage',
      link: expect.stringContaining('migrate'),
    });
    await Promise.all([first.close(), second.close()]);
  });
});

describe('errors', () => {
  it('every failure of a call is a CustomerApiError: responses, refused connections and timeouts', async () => {
    server = await startServer((req, res) => {
      if (req.url.includes('slow')) return; // never answers
      apiError(res, 'NOT_FOUND');
    });
    const client = createClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, timeoutMs: 200 });
    const notFound = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    const timeout = await client.getPage({ params: { page_id: 'slow' } }).catch((e: unknown) => e);
    const url = server.url;
    await server.close();
    server = undefined;
    const refused = await createClient({ baseUrl: url, apiKey: 'k', maxRetries: 0 })
      .getPage({ params: { page_id: 'p' } })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(refused).toBeInstanceOf(ConnectionError);
    for (const error of [notFound, timeout, refused]) expect(error).toBeInstanceOf(CustomerApiError);
    expect([notFound, timeout, refused].map((e) => (e as CustomerApiError).code)).toEqual([
      'NOT_FOUND',
      'TIMEOUT',
      'CONNECTION_ERROR',
    ]);
    expect((refused as ConnectionError).errno).toBe('ECONNREFUSED');
    await client.close();
  });
});
