import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp({ env: { RATE_LIMIT_MAX: '50', RATE_LIMIT_WINDOW_MS: '30000' } });

describe('rate-limit headers of draft-ietf-httpapi-ratelimit-headers-11', () => {
  it('sends RateLimit-Policy and RateLimit beside RateLimit-Limit/Remaining/Reset, errors included', async () => {
    const ok = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(ok.headers['ratelimit-policy']).toBe('"default";q=50;w=30');
    expect(ok.headers.ratelimit).toBe(
      `"default";r=${ok.headers['ratelimit-remaining']};t=${ok.headers['ratelimit-reset']}`,
    );
    expect(ok.headers['ratelimit-limit']).toBe('50');
    const missing = await t.app.inject({
      url: '/v0/pages/page_00000000000000000000000000',
      headers: t.auth(),
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    const unauthenticated = await t.app.inject({ url: '/v0/pages' });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['ratelimit-policy']).toBe('"default";q=50;w=30');
  });
});
