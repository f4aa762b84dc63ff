import { describe, expect, it } from 'vitest';
import { RESPONSE_COST_UNIT_BYTES } from '../rate-limit/rate-limit.js';
import { useTestApp } from '../test/test-app.js';

const MAX = 100;
const t = useTestApp({ env: { RATE_LIMIT_MAX: String(MAX) } });

describe('responses cost the rate limit by their size', () => {
  it('charges one more request per full 256 KiB sent, after sending it', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const result = 'x'.repeat(200_000);
    for (let i = 0; i < 2; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: t.auth(),
        payload: {
          role: 'assistant',
          content: 'c',
          toolCalls: [{ id: 'c', name: 'n', status: 'complete', result }],
        },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const read = await t.app.inject({ url: path, headers: t.auth() });
    expect(read.statusCode).toBe(200);
    const extra = Math.floor(Buffer.byteLength(read.body) / RESPONSE_COST_UNIT_BYTES);
    expect(extra).toBe(1);
    let sent = 5;
    // The charge lands once the response is out; each check is itself a request.
    await expect
      .poll(async () => {
        sent += 1;
        const res = await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth() });
        return Number(res.headers['ratelimit-remaining']) - (MAX - sent);
      })
      .toBe(-extra);
  });

  it('charges nothing extra for an ordinary list', async () => {
    await t.seed.page(t.tenant);
    await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    const res = await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth() });
    expect(Number(res.headers['ratelimit-remaining'])).toBe(MAX - 3);
  });
});
