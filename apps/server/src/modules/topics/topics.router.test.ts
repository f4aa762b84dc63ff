import { type Topic, TopicSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { send, walk } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';
import { DEFAULT_TOPIC_TITLE } from './topics.service.js';

const t = useTestApp();

async function topic(body: Record<string, unknown> = {}): Promise<Topic> {
  const res = await send(t, 'POST', '/v0/topics', { title: 'Pricing', ...body });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json();
}

const list = async (query = '') => (await send(t, 'GET', `/v0/topics${query}`)).json();
const defaultTopic = async (): Promise<Topic> => (await list()).items.find((i: Topic) => i.isDefault);

describe('GET /v0/topics', () => {
  it("includes the tenant's default topic from the start, exactly once even on concurrent first use", async () => {
    const pages = await Promise.all([list(), list(), list(), send(t, 'POST', '/v0/topics', { title: 'x' })]);
    const first = await list();
    expect(first).toMatchObject({ totalCount: 2, hasMore: false, nextCursor: null });
    expect(first.items.filter((i: Topic) => i.isDefault)).toHaveLength(1);
    expect(TopicSchema.parse(first.items[0])).toMatchObject({
      title: DEFAULT_TOPIC_TITLE,
      isDefault: true,
      purpose: null,
      sortOrder: 0,
      entries: [],
    });
    for (const page of pages.slice(0, 3)) expect(page.items[0].topicId).toBe(first.items[0].topicId);
  });

  it('orders topics by sortOrder, then creation, the default first among sortOrder 0', async () => {
    await topic({ title: 'late', sortOrder: 5 });
    await topic({ title: 'zero' });
    await topic({ title: 'early', sortOrder: 1 });
    await topic({ title: 'huge', sortOrder: Number.MAX_SAFE_INTEGER });
    const page = await list();
    expect(page.items.map((i: Topic) => i.title)).toEqual([
      DEFAULT_TOPIC_TITLE,
      'zero',
      'early',
      'late',
      'huge',
    ]);
    expect(page.totalCount).toBe(5);
    const walked = await walk<Topic>(t, '/v0/topics', 2);
    expect(walked.items.map((i) => i.title)).toEqual(page.items.map((i: Topic) => i.title));
    expect(new Set(walked.totals)).toEqual(new Set([5]));
  });

  it('rejects forged cursors and bad limits', async () => {
    for (const query of ['?cursor=abc', '?limit=0', '?limit=101', '?sort=title']) {
      expectApiError(await send(t, 'GET', `/v0/topics${query}`), 'VALIDATION_ERROR');
    }
  });

  it("never lists another tenant's topics", async () => {
    const other = await t.seed.tenant();
    await send(t, 'POST', '/v0/topics', { title: 'Theirs' }, other);
    expect((await list()).items.map((i: Topic) => i.title)).toEqual([DEFAULT_TOPIC_TITLE]);
  });

  itEnforcesAuth(t, async () => ({ method: 'GET', url: '/v0/topics', headers: t.auth() }), {
    write: false,
    hasIds: false,
  });
});

describe('POST /v0/topics', () => {
  it('creates a topic (201) with its fields and no entries', async () => {
    const res = await send(t, 'POST', '/v0/topics', {
      title: 'Security',
      sortOrder: 3,
      purpose: 'Compliance FAQ',
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = TopicSchema.parse(res.json());
    expect(created).toMatchObject({
      title: 'Security',
      sortOrder: 3,
      purpose: 'Compliance FAQ',
      isDefault: false,
    });
    expect(created.topicId).toMatch(/^topic_[0-9a-z]{26}$/);
    expect((await send(t, 'GET', `/v0/topics/${created.topicId}`)).json()).toEqual(created);
    expect((await list()).totalCount).toBe(2);
  });

  it('answers 400 for an empty title and sortOrder outside 0..2^53-1', async () => {
    for (const body of [
      {},
      { title: '' },
      { title: 'x', sortOrder: -1 },
      { title: 'x', sortOrder: 1.5 },
      { title: 'x', sortOrder: Number.MAX_SAFE_INTEGER + 1 },
      { title: 'x', isDefault: true },
    ]) {
      expectApiError(await send(t, 'POST', '/v0/topics', body), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => ({ method: 'POST', url: '/v0/topics', headers: t.auth(), payload: { title: 'x' } }),
    {
      write: true,
      hasIds: false,
    },
  );
});

describe('GET /v0/topics/{topic_id}', () => {
  it('reads a topic with its entries in sortOrder', async () => {
    const created = await topic();
    const now = new Date();
    const entry = (id: string, sortOrder: number, text: string) =>
      query(
        t.database.db,
        `INSERT INTO topic_entries (id, tenant_id, topic_id, sort_order, content, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)`,
        [
          id,
          t.tenant.tenantId,
          created.topicId,
          sortOrder,
          JSON.stringify({ type: 'text', content: text }),
          now.toISOString(),
        ],
      );
    await entry(`topicentry_b${Date.now()}`, 2, 'second');
    await entry(`topicentry_a${Date.now()}`, 1, 'first');
    const read = TopicSchema.parse((await send(t, 'GET', `/v0/topics/${created.topicId}`)).json());
    expect(read.entries.map((e) => [e.sortOrder, e.content])).toEqual([
      [1, { type: 'text', content: 'first' }],
      [2, { type: 'text', content: 'second' }],
    ]);
    const listed = (await list()).items.find((i: Topic) => i.topicId === created.topicId);
    expect(listed.entries).toEqual(read.entries);
  });

  it('answers 404 for an unknown topic', async () => {
    expectApiError(await send(t, 'GET', '/v0/topics/topic_nope'), 'NOT_FOUND');
  });

  itEnforcesAuth(
    t,
    async () => {
      const created = await topic();
      return { method: 'GET', url: `/v0/topics/${created.topicId}`, headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});

describe('PATCH /v0/topics/{topic_id}', () => {
  it('changes title, sortOrder and purpose, and clears purpose with null', async () => {
    const created = await topic({ purpose: 'p' });
    const res = await send(t, 'PATCH', `/v0/topics/${created.topicId}`, { title: 'Plans', sortOrder: 9 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ title: 'Plans', sortOrder: 9, purpose: 'p' });
    const cleared = await send(t, 'PATCH', `/v0/topics/${created.topicId}`, { purpose: null });
    expect(cleared.json()).toMatchObject({ title: 'Plans', purpose: null });
    expect((await send(t, 'GET', `/v0/topics/${created.topicId}`)).json()).toEqual(cleared.json());
  });

  it('answers 409 when renaming the default topic, but allows its other fields and its own title', async () => {
    const def = await defaultTopic();
    const res = await send(t, 'PATCH', `/v0/topics/${def.topicId}`, { title: 'Renamed' });
    expect(expectApiError(res, 'CONFLICT').detail).toMatch(/default topic/);
    const rest = await send(t, 'PATCH', `/v0/topics/${def.topicId}`, { sortOrder: 4, purpose: 'Catch-all' });
    expect(rest.json()).toMatchObject({
      title: DEFAULT_TOPIC_TITLE,
      sortOrder: 4,
      purpose: 'Catch-all',
      isDefault: true,
    });
    const same = await send(t, 'PATCH', `/v0/topics/${def.topicId}`, { title: DEFAULT_TOPIC_TITLE });
    expect(same.statusCode).toBe(200);
  });

  it('answers 400 for an empty body or an empty title, 404 for an unknown topic', async () => {
    const created = await topic();
    for (const body of [{}, { title: '' }, { isDefault: true }]) {
      expectApiError(await send(t, 'PATCH', `/v0/topics/${created.topicId}`, body), 'VALIDATION_ERROR');
    }
    expectApiError(await send(t, 'PATCH', '/v0/topics/topic_nope', { title: 'x' }), 'NOT_FOUND');
  });

  itEnforcesAuth(
    t,
    async () => {
      const created = await topic();
      return {
        method: 'PATCH',
        url: `/v0/topics/${created.topicId}`,
        headers: t.auth(),
        payload: { title: 'y' },
      };
    },
    { write: true, hasIds: true },
  );
});
