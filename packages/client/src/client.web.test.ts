import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from './client.web.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('createClient of the web entry point', () => {
  it('sends through the global fetch, looked up per call and called on globalThis (Workers refuse another this)', async () => {
    const calls: Array<{ self: unknown; url: string; dispatcher: unknown }> = [];
    const first = vi.fn();
    vi.stubGlobal('fetch', first);
    const client = createClient({ baseUrl: 'https://api.example.test', apiKey: 'k' });
    // A fetch installed after the client was made (a polyfill, a test double) is the one used.
    vi.stubGlobal('fetch', function (this: unknown, url: string, init: { dispatcher?: unknown }) {
      calls.push({ self: this, url, dispatcher: init.dispatcher });
      return Promise.resolve(
        new Response('{"pageId":"p"}', { status: 200, headers: { 'content-type': 'application/json' } }),
      );
    });
    await expect(client.getPage({ params: { page_id: 'p' } })).resolves.toEqual({ pageId: 'p' });
    expect(first).not.toHaveBeenCalled();
    expect(calls).toEqual([
      { self: globalThis, url: 'https://api.example.test/v0/pages/p', dispatcher: undefined },
    ]);
    await client.close();
  });
});
