import { GetMessageSchema, MessageSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const post = (url: string, payload: unknown = {}) =>
  t.app.inject({ method: 'POST', url, headers: t.auth(), payload: payload as object });
const get = (url: string) => t.app.inject({ url, headers: t.auth() });

async function setup() {
  const page = await t.seed.page(t.tenant, {
    pageContext: 'About Acme',
    metadata: { title: 'Page title', description: 'Page description', keywords: ['a', 'b'] },
  });
  const audience = await t.seed.audience(t.tenant, page.pageId, { supplementaryContext: 'v0' });
  const base = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}`;
  return { page, audience, base, messages: `${base}/messages` };
}

describe('GET …/messages', () => {
  it('answers an empty history with the current context before any message', async () => {
    const { page, audience, messages } = await setup();
    const res = await get(messages);
    expect(res.statusCode).toBe(200);
    expect(GetMessageSchema.parse(res.json())).toEqual({
      conversation: null,
      messages: [],
      context: {
        audienceId: audience.audienceId,
        pageId: page.pageId,
        pageContext: 'About Acme',
        currentSupplementaryContext: 'v0',
        currentMetaTitle: 'Page title',
        currentMetaDescription: 'Page description',
        currentMetaKeywords: 'a, b',
      },
      pendingChanges: [],
    });
  });

  itEnforcesAuth(
    t,
    async () => {
      const { messages } = await setup();
      return { method: 'GET', url: messages, headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});

describe('POST …/messages and restore', () => {
  it('applies changes, stores snapshots, lists saved changes as pending, and restores a snapshot', async () => {
    const { base, messages } = await setup();
    const first = await post(messages, { role: 'user', content: 'Make it about logistics' });
    expect(first.statusCode, first.body).toBe(201);
    expect(MessageSchema.parse(first.json())).toMatchObject({
      role: 'user',
      hasSnapshot: false,
      changes: null,
    });

    const m1 = (
      await post(messages, {
        role: 'assistant',
        content: 'Done',
        changes: [
          { field: 'supplementaryContext', newValue: 'v1', status: 'applied' },
          { field: 'metaTitle', newValue: 'Logistics', status: 'applied' },
        ],
        toolCalls: [{ id: 'tc1', name: 'edit', status: 'complete', arguments: { a: 1 } }],
        contentParts: [{ type: 'text', text: 'Done' }],
      })
    ).json();
    expect(m1).toMatchObject({
      hasSnapshot: true,
      changes: [
        { field: 'supplementaryContext', previousValue: 'v0', newValue: 'v1', status: 'applied' },
        { field: 'metaTitle', previousValue: 'Page title', newValue: 'Logistics', status: 'applied' },
      ],
    });
    expect(m1.changes[0].changeId).toMatch(/^change_/);
    const m2 = (
      await post(messages, {
        role: 'assistant',
        content: 'More',
        changes: [
          { field: 'supplementaryContext', newValue: 'v2', status: 'applied' },
          { field: 'metaKeywords', newValue: 'x, y', status: 'saved' },
        ],
      })
    ).json();
    const audience = (await get(base)).json();
    expect(audience).toMatchObject({ supplementaryContext: 'v2', effectiveMetadata: { title: 'Logistics' } });

    let history = GetMessageSchema.parse((await get(messages)).json());
    expect(history.messages.map((m) => m.content)).toEqual(['Make it about logistics', 'Done', 'More']);
    // The read tells which messages hold a snapshot without sending (or reading) the snapshots.
    expect(history.messages.map((m) => m.hasSnapshot)).toEqual([false, true, true]);
    expect(history.conversation).toMatchObject({ publishedMessageId: null });
    expect(history.pendingChanges).toEqual([
      expect.objectContaining({ field: 'metaKeywords', newValue: 'x, y', status: 'saved' }),
    ]);
    expect(history.context.currentSupplementaryContext).toBe('v2');

    const restored = await post(`${messages}/${m1.messageId}/restore`, {});
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toEqual({ success: true, messageId: m1.messageId });
    history = GetMessageSchema.parse((await get(messages)).json());
    expect(history.context).toMatchObject({
      currentSupplementaryContext: 'v1',
      currentMetaTitle: 'Logistics',
    });
    const later = history.messages.find((m) => m.messageId === m2.messageId);
    expect(later?.changes?.map((c) => c.status)).toEqual(['reverted', 'saved']);
    expect(history.messages[1]?.changes?.map((c) => c.status)).toEqual(['applied', 'applied']);
  });

  it('takes a posted previousValue as a precondition: equal is stored, different is 409 and stores nothing', async () => {
    const { messages } = await setup();
    const ok = await post(messages, {
      role: 'assistant',
      content: 'Done',
      changes: [
        { field: 'supplementaryContext', previousValue: 'v0', newValue: 'v1', status: 'applied' },
        // A later change of the same message sees the earlier one applied.
        { field: 'supplementaryContext', previousValue: 'v1', newValue: 'v2', status: 'saved' },
        { field: 'metaKeywords', previousValue: 'a, b', newValue: null },
      ],
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().changes.map((c: { previousValue: string | null }) => c.previousValue)).toEqual([
      'v0',
      'v1',
      'a, b',
    ]);
    const stale = await post(messages, {
      role: 'assistant',
      content: 'Stale',
      changes: [{ field: 'supplementaryContext', previousValue: 'v0', newValue: 'v3', status: 'applied' }],
    });
    const error = expectApiError(stale, 'CONFLICT');
    expect(error.detail).toContain('expects supplementaryContext to be "v0", but it is "v1"');
    const history = (await get(messages)).json();
    expect(history.messages).toHaveLength(1);
    expect(history.context.currentSupplementaryContext).toBe('v1');
  });

  it('answers 409 restoring a message without snapshot and 404 for unknown or misplaced messages', async () => {
    const { page, messages } = await setup();
    const m = (await post(messages, { role: 'user', content: 'hi' })).json();
    expectApiError(await post(`${messages}/${m.messageId}/restore`), 'CONFLICT');
    expectApiError(await post(`${messages}/message_nope/restore`), 'NOT_FOUND');
    const other = await t.seed.audience(t.tenant, page.pageId);
    const otherMessages = `/v0/pages/${page.pageId}/audiences/${other.audienceId}/messages`;
    expectApiError(await post(`${otherMessages}/${m.messageId}/restore`), 'NOT_FOUND');
  });

  it('rejects malformed messages', async () => {
    const { messages } = await setup();
    for (const bad of [
      {},
      { role: 'system', content: 'x' },
      { role: 'user', content: 1 },
      { role: 'user', content: 'x', changes: [{ field: 'title', newValue: 'x' }] },
      { role: 'user', content: 'x', changes: [{ field: 'metaTitle', newValue: 'x', changeId: 'c' }] },
      { role: 'user', content: 'x', contentParts: [{ type: 'video' }] },
      { role: 'user', content: 'x', toolCalls: [{ id: 'a', name: 'b', status: 'done' }] },
    ]) {
      expectApiError(await post(messages, bad), 'VALIDATION_ERROR');
    }
  });

  it('answers 409 when the audience is archived', async () => {
    const { base, messages } = await setup();
    await post(`${base}/archive`);
    expectApiError(await post(messages, { role: 'user', content: 'hi' }), 'CONFLICT');
  });

  itEnforcesAuth(
    t,
    async () => {
      const { messages } = await setup();
      return { method: 'POST', url: messages, headers: t.auth(), payload: { role: 'user', content: 'x' } };
    },
    { write: true, hasIds: true },
  );
  itEnforcesAuth(
    t,
    async () => {
      const { messages } = await setup();
      const m = (
        await post(messages, {
          role: 'assistant',
          content: 'x',
          changes: [{ field: 'metaDescription', newValue: 'd', status: 'applied' }],
        })
      ).json();
      return { method: 'POST', url: `${messages}/${m.messageId}/restore`, headers: t.auth(), payload: {} };
    },
    { write: true, hasIds: true },
  );
});
