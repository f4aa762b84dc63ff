import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.web.js';
import { ConnectionError } from './errors.js';

const API = 'https://api.example.test';
const PAGE = 'https://app.example.test';

afterEach(() => {
  vi.unstubAllGlobals();
});

/**
 * A browser page at `page` whose fetch fails every API request as browsers do (a bare TypeError),
 * and answers the no-cors probe when `serverUp`.
 */
function browserPage(page: string, serverUp: boolean): Array<{ url: string; mode: unknown }> {
  const calls: Array<{ url: string; mode: unknown }> = [];
  vi.stubGlobal('document', {});
  vi.stubGlobal('location', { origin: page });
  vi.stubGlobal('fetch', async (url: string, init: { mode?: unknown }) => {
    calls.push({ url, mode: init.mode });
    if (serverUp && init.mode === 'no-cors') return new Response(null, { status: 200 });
    throw new TypeError('Failed to fetch');
  });
  return calls;
}

const client = () =>
  createClient({ baseUrl: API, apiKey: 'k', backoff: { initialDelayMs: 1, maxDelayMs: 1 } });

describe('a request a browser fails before any response', () => {
  it('names CORS and the setting when the server answers, and does not retry it', async () => {
    const calls = browserPage(PAGE, true);
    const error = await client()
      .listPages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).corsBlocked).toBe(true);
    expect((error as Error).message).toBe(
      `Request to ${API} was blocked by CORS (Failed to fetch): the server answers, but not to pages of ${PAGE}. The server's CORS_ALLOWED_ORIGINS must list ${PAGE}.`,
    );
    expect(calls).toEqual([
      { url: `${API}/v0/pages`, mode: undefined },
      { url: `${API}/healthz`, mode: 'no-cors' },
    ]);
  });

  it('names both CORS and the network when the server does not answer, and retries as usual', async () => {
    const calls = browserPage(PAGE, false);
    const error = await client()
      .listPages()
      .catch((e: unknown) => e);
    expect((error as ConnectionError).corsBlocked).toBe(false);
    expect((error as Error).message).toContain(`CORS_ALLOWED_ORIGINS must list ${PAGE}) or by the network`);
    expect(calls.filter((call) => call.mode === undefined)).toHaveLength(3);
  });

  it('keeps the plain message on a same-origin page, where CORS cannot be the cause', async () => {
    const calls = browserPage(API, true);
    const error = await client()
      .listPages()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(`Request to ${API} failed: Failed to fetch`);
    expect(calls.every((call) => call.mode === undefined)).toBe(true);
  });
});

describe('a page outside a secure context (plain HTTP, not localhost)', () => {
  it('still sends a fresh UUID as Idempotency-Key, though the browser offers no crypto.randomUUID', async () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: real.getRandomValues.bind(real) });
    const keys: string[] = [];
    vi.stubGlobal('fetch', async (_url: string, init: { headers: Record<string, string> }) => {
      keys.push(init.headers['idempotency-key'] ?? '');
      return new Response('{"topicId":"t"}', {
        status: 201,
        headers: { 'content-type': 'application/json' },
      });
    });
    const api = client();
    await api.createTopic({ body: { title: 'a' } });
    await api.createTopic({ body: { title: 'b' } });
    expect(keys).toEqual([
      expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    ]);
    expect(keys[0]).not.toBe(keys[1]);
  });
});
