import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp();

describe('X-OAuth-Scopes: every response to a known key names its scopes', () => {
  it('names read and write for a read+write key, on success and on errors', async () => {
    const ok = await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth() });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-oauth-scopes']).toBe('read, write');
    const missing = await t.app.inject({
      url: '/v0/pages/page_00000000000000000000000000',
      headers: t.auth(),
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-oauth-scopes']).toBe('read, write');
  });

  it('names only read for a read-only key, also on the write it is refused', async () => {
    const key = await t.tenant.key(['read']);
    const read = await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth(key) });
    expect(read.headers['x-oauth-scopes']).toBe('read');
    const write = await t.app.inject({
      method: 'POST',
      url: '/v0/topics',
      headers: t.auth(key),
      payload: { name: 'refused' },
    });
    expect(write.statusCode).toBe(403);
    expect(write.headers['x-oauth-scopes']).toBe('read');
  });

  it('is absent without a valid key: an unknown key learns nothing', async () => {
    for (const headers of [{}, { 'x-api-key': 'cak_not_a_real_key' }]) {
      const res = await t.app.inject({ url: '/v0/pages', headers });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-oauth-scopes']).toBeUndefined();
    }
  });
});
