import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { TenantShare } from '../db/tenant-share.js';
import { expectApiError } from '../test/http-cases.js';
import { expectReplay, idempotentRequests, PAGE } from '../test/idempotency.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';

// The test clock moves only when a test moves it, so expiry is exact.
const now = Date.parse('2026-11-01T00:00:00.000Z');
// A long queue, so a request waiting for a share a test holds stays "running".
const share = new TenantShare({ concurrency: 4, queueMs: 60_000 });
const t = useTestApp({ clock: () => new Date(now), tenantShare: share, env: { IDEMPOTENCY_TTL_S: '60' } });
const { send, createPage, pageCount } = idempotentRequests(t);

describe('Idempotency-Key', () => {
  it('replays the first response byte for byte and creates nothing more', async () => {
    const first = await createPage('k-1');
    expect(first.statusCode).toBe(201);
    const again = await createPage('k-1');
    expectReplay(first, again);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await pageCount()).toBe(1);
  });

  it('is scoped to the tenant: another tenant’s same key is its own request', async () => {
    const mine = await createPage('shared');
    const other = await t.seed.tenant();
    const theirs = await send('POST', '/v0/pages', 'shared', PAGE, other.apiKey);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().pageId).not.toBe(mine.json().pageId);
  });

  it('answers 409 when the key is reused with another body, path or method', async () => {
    const page = (await createPage('reuse')).json<{ pageId: string }>();
    const otherBody = await createPage('reuse', { ...PAGE, name: 'Other' });
    expect(expectApiError(otherBody, 'CONFLICT').detail).toMatch(/Idempotency-Key was already used/);
    expect(otherBody.headers['retry-after']).toBeUndefined();
    expectApiError(await send('POST', `/v0/pages/${page.pageId}/audiences`, 'reuse', {}), 'CONFLICT');
    expect(await pageCount()).toBe(1);
  });

  it('answers 409 with Retry-After: 1 while the first request runs, then replays it', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => share.acquire(t.tenant.tenantId)));
    const begun = once(t.app.idempotency.events, 'begin');
    const first = createPage('slow');
    await begun;
    const during = await createPage('slow');
    expectApiError(during, 'CONFLICT');
    expect(during.headers['retry-after']).toBe('1');
    for (const release of held) release();
    const done = await first;
    expect(done.statusCode).toBe(201);
    expectReplay(done, await createPage('slow'));
    expect(await pageCount()).toBe(1);
  });

  it('concurrent retries with one key create exactly one version and one page.version.created', async () => {
    const page = (await createPage(undefined)).json<{ pageId: string }>();
    const audience = (await send('POST', `/v0/pages/${page.pageId}/audiences`, undefined, {})).json<{
      audienceId: string;
    }>();
    const url = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => send('POST', url, 'v-1', {})));
    const statuses = answers.map(
      (a) => `${a.statusCode}:${a.headers['idempotent-replayed'] ?? a.headers['retry-after'] ?? ''}`,
    );
    expect(statuses.filter((s) => s === '201:')).toHaveLength(1);
    expect(statuses.every((s) => ['201:', '201:true', '409:1'].includes(s))).toBe(true);
    const versions = await query<{ n: number }>(
      t.database.db,
      `SELECT count(*) AS n FROM webhook_events WHERE tenant_id = $1 AND type = 'page.version.created'`,
      [t.tenant.tenantId],
    );
    expect(versions[0]?.n).toBe(1);
  });

  it('keeps nothing for 400, 401 and 403: the key stays free', async () => {
    expectApiError(await createPage('free', { ...PAGE, pageType: 'nope' }), 'VALIDATION_ERROR');
    const readOnly = await t.tenant.key(['read']);
    expectApiError(await send('POST', '/v0/pages', 'free', PAGE, readOnly), 'FORBIDDEN');
    expectApiError(await send('POST', '/v0/pages', 'free', PAGE, 'cak_wrong'), 'UNAUTHORIZED');
    const created = await createPage('free');
    expect(created.statusCode).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps a 404 and replays it, changing nothing', async () => {
    const url = '/v0/pages/page_00000000000000000000000000/audiences';
    const first = await send('POST', url, 'missing', {});
    expectApiError(first, 'NOT_FOUND');
    expectReplay(first, await send('POST', url, 'missing', {}));
  });

  it('keeps a 409 from a failed insert and replays it; the failed write left nothing', async () => {
    const person = { name: 'Ada', email: 'ada@dup.example' };
    expect((await send('POST', '/v0/persons', undefined, person)).statusCode).toBe(201);
    const first = await send('POST', '/v0/persons', 'dup', person);
    expectApiError(first, 'CONFLICT');
    expectReplay(first, await send('POST', '/v0/persons', 'dup', person));
  });

  it('replays the stored answer after the resource was deleted', async () => {
    const first = await createPage('gone');
    const { pageId } = first.json<{ pageId: string }>();
    expect((await send('DELETE', `/v0/pages/${pageId}`, undefined)).statusCode).toBe(200);
    const again = await createPage('gone');
    expectReplay(first, again);
    expect(again.json().deletedAt).toBeNull();
  });

  it('replays a response of almost 1 MiB', async () => {
    // 100 scripts of 10,000 characters: about 1 MiB each way, under the 1 MiB body limit.
    const script = { content: 'x'.repeat(10_000), enabled: true, name: 's', description: 'd' };
    const big = {
      ...PAGE,
      pageContext: 'y'.repeat(40_000),
      scripts: Array.from({ length: 100 }, () => script),
    };
    const first = await createPage('big', big);
    expect(first.statusCode, first.body.slice(0, 300)).toBe(201);
    expect(first.body.length).toBeGreaterThan(1_040_000);
    expectReplay(first, await createPage('big', big));
  });

  it('works on PATCH and beside createAccountLog’s body key', async () => {
    const topics = (await send('GET', '/v0/topics', undefined)).json<{
      items: Array<{ topicId: string; isDefault: boolean }>;
    }>();
    const created = await send('POST', '/v0/topics', undefined, { title: 'T' });
    const { topicId } = created.json<{ topicId: string }>();
    expect(topics.items.length).toBeGreaterThan(0);
    const patch = await send('PATCH', `/v0/topics/${topicId}`, 'p-1', { title: 'Renamed' });
    expect(patch.statusCode).toBe(200);
    expectReplay(patch, await send('PATCH', `/v0/topics/${topicId}`, 'p-1', { title: 'Renamed' }));
    const log = { source: 'crm', domain: 'acme.example', payload: {}, idempotencyKey: 'body-key' };
    const first = await send('POST', '/v0/account_logs', 'header-key', log);
    expect(first.statusCode).toBe(201);
    expectReplay(first, await send('POST', '/v0/account_logs', 'header-key', log));
    const byBody = await send('POST', '/v0/account_logs', 'another-header-key', log);
    expect(byBody.statusCode).toBe(200);
  });

  it('keeps no response of publishAudienceMessage (a history of up to 4 MiB): a retry publishes again and answers the history as it is then', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const messages = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const posted = await send('POST', messages, undefined, { role: 'user', content: 'x'.repeat(100_000) });
    expect(posted.statusCode, posted.body).toBe(201);
    const { messageId } = posted.json<{ messageId: string }>();
    const publish = `${messages}/${messageId}/publish`;
    const kept = async () =>
      (
        await query<{ n: number }>(
          t.database.db,
          `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'pub'`,
        )
      )[0]?.n;

    const first = await send('POST', publish, 'pub', {});
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ conversation: { publishedMessageId: messageId } });
    expect(await kept()).toBe(0);
    await send('POST', messages, undefined, { role: 'user', content: 'later' });
    const again = await send('POST', publish, 'pub', {});
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json<{ messages: unknown[] }>().messages).toHaveLength(2);
    // The key's format is still checked.
    expectApiError(await send('POST', publish, 'k'.repeat(300), {}), 'VALIDATION_ERROR');
  });
});
