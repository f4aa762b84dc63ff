import type { Page, Topic } from '@customer-api/contract';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../rate-limit/rate-limit.js';
import { send } from '../test/accounts.js';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';

/** Points given back so far (a 304's refund runs after its response is sent). */
let refunds = 0;
const t = useTestApp({
  rateLimiter: (database, config) => {
    const limiter = createRateLimiter({
      ...config.rateLimit,
      redisUrl: config.redisUrl,
      pool: database.pool,
    });
    return {
      ...limiter,
      refund: async (key) => {
        await limiter.refund(key);
        refunds += 1;
      },
    };
  },
});

const ETAG = /^"[A-Za-z0-9_-]{22}"$/;

function request(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers: { ...t.auth(), ...headers }, ...(payload ? { payload } : {}) });
}

const etagOf = (res: LightMyRequestResponse): string => {
  const tag = res.headers.etag;
  if (typeof tag !== 'string') throw new Error(`no ETag on ${res.statusCode} ${res.body}`);
  return tag;
};

async function topic(title = 'Pricing'): Promise<{ body: Topic; etag: string }> {
  const res = await send(t, 'POST', '/v0/topics', { title });
  expect(res.statusCode).toBe(201);
  return { body: res.json(), etag: etagOf(res) };
}

describe('ETag on reads and writes', () => {
  it('sends a strong tag that every operation gives alike for the same state, and a new one after a change', async () => {
    const created = await topic();
    const url = `/v0/topics/${created.body.topicId}`;
    const read = await send(t, 'GET', url);
    expect(etagOf(read)).toMatch(ETAG);
    expect(etagOf(read)).toBe(created.etag);
    const updated = await send(t, 'PATCH', url, { title: 'Plans' });
    expect(etagOf(updated)).not.toBe(created.etag);
    expect(etagOf(await send(t, 'GET', url))).toBe(etagOf(updated));
  });

  it('tags every single-resource read with the tag its writes answer (pages, audiences, versions, subscriptions)', async () => {
    const page = await t.seed.page(t.tenant);
    const pageUrl = `/v0/pages/${page.pageId}`;
    const archived = await send(t, 'POST', `${pageUrl}/archive`, {});
    expect(etagOf(await send(t, 'GET', pageUrl))).toBe(etagOf(archived));
    const restored = await send(t, 'POST', `${pageUrl}/restore`, {});
    expect(etagOf(await send(t, 'GET', pageUrl))).toBe(etagOf(restored));

    const audience = await send(t, 'POST', `${pageUrl}/audiences`, {});
    const audienceUrl = `${pageUrl}/audiences/${audience.json().audienceId}`;
    expect(etagOf(await send(t, 'GET', audienceUrl))).toBe(etagOf(audience));
    const version = await send(t, 'POST', `${audienceUrl}/versions`, {});
    const versionUrl = `${audienceUrl}/versions/${version.json().versionId}`;
    expect(etagOf(await send(t, 'GET', versionUrl))).toBe(etagOf(version));
    const published = await send(t, 'POST', `${versionUrl}/publish`, {});
    expect(etagOf(await send(t, 'GET', versionUrl))).toBe(etagOf(published));

    const subscription = await send(t, 'POST', '/v0/webhook_subscriptions', {
      url: 'https://hooks.example.com/in',
    });
    const subscriptionUrl = `/v0/webhook_subscriptions/${subscription.json().webhookSubscriptionId}`;
    expect(etagOf(await send(t, 'GET', subscriptionUrl))).toBe(etagOf(subscription));
    const rotated = await send(t, 'POST', `${subscriptionUrl}/rotate_secret`, {});
    expect(rotated.json().signingSecret).toBeDefined();
    expect(etagOf(await send(t, 'GET', subscriptionUrl))).toBe(etagOf(rotated));
  });

  it('changes the history tag when a message is added', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const url = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const before = etagOf(await send(t, 'GET', url));
    expect((await send(t, 'POST', url, { role: 'user', content: 'hello' })).statusCode).toBe(201);
    expect(etagOf(await send(t, 'GET', url))).not.toBe(before);
  });
});

describe('If-None-Match', () => {
  it('answers 304 with no body and the same tag, for the tag, a list holding it, a weak form or *', async () => {
    const { body, etag } = await topic();
    const url = `/v0/topics/${body.topicId}`;
    for (const value of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const res = await request('GET', url, { 'if-none-match': value });
      expect(res.statusCode, value).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
    }
    const changed = await request('GET', url, { 'if-none-match': '"other"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().topicId).toBe(body.topicId);
  });

  it('does not count a 304 against the rate limit', async () => {
    const { body, etag } = await topic();
    const url = `/v0/topics/${body.topicId}`;
    const remaining = (res: LightMyRequestResponse) => Number(res.headers['ratelimit-remaining']);
    const first = await request('GET', url, {});
    const before = refunds;
    const notModified = await request('GET', url, { 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    // The 304's headers show the window without it; the next request counts only itself.
    expect(remaining(notModified)).toBe(remaining(first));
    for (let i = 0; i < 5; i += 1) await request('GET', url, { 'if-none-match': etag });
    // Each point is given back once its 304 is sent, which may be after the client has it.
    await expect.poll(() => refunds - before).toBe(6);
    expect(remaining(await request('GET', url, {}))).toBe(remaining(first) - 1);
  });

  it("answers a foreign tenant's resource 404 whatever the tag", async () => {
    const { body, etag } = await topic();
    const other = await t.seed.tenant();
    const res = await t.app.inject({
      method: 'GET',
      url: `/v0/topics/${body.topicId}`,
      headers: { ...other.auth(), 'if-none-match': etag },
    });
    expectApiError(res, 'NOT_FOUND');
  });
});

describe('If-Match', () => {
  it('writes with the current tag or *, and refuses a stale one with 412, changing nothing', async () => {
    const { body, etag } = await topic();
    const url = `/v0/topics/${body.topicId}`;
    const first = await request('PATCH', url, { 'if-match': etag }, { title: 'First' });
    expect(first.statusCode).toBe(200);
    const stale = await request('PATCH', url, { 'if-match': etag }, { title: 'Second' });
    const error = expectApiError(stale, 'PRECONDITION_FAILED');
    expect(stale.statusCode).toBe(412);
    expect(error.title).toBe('Precondition Failed');
    expect(error.detail).toMatch(/changed since it was read/);
    const now = await send(t, 'GET', url);
    expect(now.json().title).toBe('First');
    expect(etagOf(now)).toBe(etagOf(first));
    const hostile = [
      `W/${etagOf(first)}`,
      '"nope"',
      'garbage',
      `"${'x'.repeat(2000)}"`,
      '"a", '.repeat(2000),
    ];
    for (const value of hostile) {
      const res = await request('PATCH', url, { 'if-match': value }, { title: 'x' });
      // The header is not echoed back: a hostile one does not grow the answer.
      expect(res.statusCode, value.slice(0, 40)).toBe(412);
      expect(res.body.length).toBeLessThan(600);
    }
    expect((await request('PATCH', url, { 'if-match': '*' }, { title: 'Any' })).statusCode).toBe(200);
    expect((await send(t, 'GET', url)).json().title).toBe('Any');
  });

  it('answers a missing or foreign resource 404, not 412', async () => {
    const { body, etag } = await topic();
    const other = await t.seed.tenant();
    const foreign = await t.app.inject({
      method: 'PATCH',
      url: `/v0/topics/${body.topicId}`,
      headers: { ...other.auth(), 'if-match': etag },
      payload: { title: 'stolen' },
    });
    expectApiError(foreign, 'NOT_FOUND');
    expectApiError(
      await request('PATCH', '/v0/topics/topic_missing', { 'if-match': '*' }, { title: 'x' }),
      'NOT_FOUND',
    );
    expect((await send(t, 'GET', `/v0/topics/${body.topicId}`)).json().title).toBe('Pricing');
  });

  it('guards transitions and deletes: a stale tag neither archives nor deletes a page', async () => {
    const page: Page = await t.seed.page(t.tenant);
    const url = `/v0/pages/${page.pageId}`;
    const tag = etagOf(await send(t, 'GET', url));
    expect((await request('POST', `${url}/archive`, { 'if-match': tag }, {})).statusCode).toBe(200);
    expectApiError(await request('POST', `${url}/restore`, { 'if-match': tag }, {}), 'PRECONDITION_FAILED');
    expectApiError(await request('DELETE', url, { 'if-match': tag }), 'PRECONDITION_FAILED');
    const now = (await send(t, 'GET', url)).json();
    expect(now.archivedAt).not.toBeNull();
    expect(now.deletedAt).toBeNull();
  });

  it('guards an append to a conversation with the history tag', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const url = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const tag = etagOf(await send(t, 'GET', url));
    const message = { role: 'user', content: 'hello' };
    expect((await request('POST', url, { 'if-match': tag }, message)).statusCode).toBe(201);
    expectApiError(await request('POST', url, { 'if-match': tag }, message), 'PRECONDITION_FAILED');
    expect((await send(t, 'GET', url)).json().messages).toHaveLength(1);
  });

  it('replays a keyed write that succeeded instead of answering 412, and keeps no 412 for its key', async () => {
    const { body, etag } = await topic();
    const url = `/v0/topics/${body.topicId}`;
    const headers = { 'if-match': etag, 'idempotency-key': `k-${body.topicId}` };
    const first = await request('PATCH', url, headers, { title: 'Once' });
    expect(first.statusCode).toBe(200);
    const replay = await request('PATCH', url, headers, { title: 'Once' });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);

    const stale = { 'if-match': etag, 'idempotency-key': `k2-${body.topicId}` };
    expectApiError(await request('PATCH', url, stale, { title: 'Twice' }), 'PRECONDITION_FAILED');
    const fresh = { ...stale, 'if-match': etagOf(first) };
    expect((await request('PATCH', url, fresh, { title: 'Twice' })).statusCode).toBe(200);
  });

  it('lets one of two concurrent writes with the same tag through and refuses the other', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { body, etag } = await topic(`race ${round}`);
      const url = `/v0/topics/${body.topicId}`;
      const results = await Promise.all(
        ['A', 'B'].map((title) => request('PATCH', url, { 'if-match': etag }, { title })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 412]);
      const winner = results.find((r) => r.statusCode === 200);
      expect((await send(t, 'GET', url)).json().title).toBe(winner?.json().title);
    }
  });
});
