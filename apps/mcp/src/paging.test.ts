import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, textOf } from './test/connect.js';

// Issue 16, items 1 and 2: a cut page or history never hides an item from an assistant that
// follows the hint it is given.
const api = inject('api');
const run = Math.random().toString(36).slice(2, 8);
let mcp: Connected;

beforeAll(async () => {
  mcp = await connectInMemory(api);
});
afterAll(async () => {
  await mcp.close();
});

interface Page {
  items: { pageId: string; name: string }[];
  hasMore: boolean;
  nextCursor: string | null;
}

describe('a list page cut to fit the cap', () => {
  it('ends at an item boundary with a cursor right after it, so following the hint reaches every item', async () => {
    const mine = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const created = await mcp.call('create_page', {
        name: `paging-${run}-${i}`,
        title: 'Big context',
        pageContext: 'c'.repeat(6_000),
        brandId: 'b',
        pageType: 'custom',
      });
      mine.add((created.structuredContent as { pageId: string }).pageId);
    }
    const seen: string[] = [];
    const notes: string[] = [];
    let cursor: string | undefined;
    for (let call = 0; call < 200; call++) {
      // The long field is asked for: summaries (the default) would fit ten to a page.
      const fields = ['pageId', 'name', 'pageContext'];
      const result = await mcp.call('list_pages', { limit: 10, fields, ...(cursor ? { cursor } : {}) });
      const page = result.structuredContent as unknown as Page;
      const note = textOf(result, 1);
      seen.push(...page.items.map((p) => p.pageId));
      notes.push(note);
      expect(note).not.toContain('limit=');
      if (!page.nextCursor) break;
      expect(note).toContain(`cursor="${page.nextCursor}"`);
      cursor = page.nextCursor;
    }
    expect([...mine].filter((id) => !seen.includes(id))).toEqual([]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(notes.some((n) => /Only \d+ items fit in 24000 bytes, so this page ends there/.test(n))).toBe(
      true,
    );
  });
});

describe('an audience history of 40 messages', () => {
  let ids: { pageId: string; audienceId: string };
  const posted: string[] = [];

  beforeAll(async () => {
    const page = await mcp.call('create_page', {
      name: `history-${run}`,
      title: 'History',
      pageContext: 'ctx',
      brandId: 'b',
      pageType: 'custom',
    });
    const pageId = (page.structuredContent as { pageId: string }).pageId;
    const audience = await mcp.call('create_audience', { pageId });
    ids = { pageId, audienceId: (audience.structuredContent as { audienceId: string }).audienceId };
    for (let i = 0; i < 40; i++) {
      const message = await mcp.call('create_audience_message', {
        ...ids,
        role: 'user',
        content: `message ${i} ${'m'.repeat(1_500)}`,
      });
      posted.push((message.structuredContent as { messageId: string }).messageId);
    }
  });

  it('reaches every message, newest first, by following before=nextBefore', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let call = 0; call < 20; call++) {
      const result = await mcp.call('get_audience_messages', { ...ids, ...(before ? { before } : {}) });
      expect(result.isError, textOf(result)).toBeFalsy();
      const history = result.structuredContent as {
        messages: { messageId: string }[];
        totalMessages: number;
        nextBefore: string | null;
      };
      expect(history.totalMessages).toBe(40);
      expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(24_000);
      expect(textOf(result, 1)).not.toContain('fields');
      seen.push(...history.messages.map((m) => m.messageId));
      if (!history.nextBefore) break;
      expect(textOf(result, 1)).toContain(`before="${history.nextBefore}"`);
      before = history.nextBefore;
    }
    expect(seen).toEqual([...posted].reverse());
  });

  it('returns limit messages older than before', async () => {
    const result = await mcp.call('get_audience_messages', { ...ids, limit: 3, before: posted[10] });
    const history = result.structuredContent as { messages: { messageId: string }[]; nextBefore: string };
    expect(history.messages.map((m) => m.messageId)).toEqual([posted[9], posted[8], posted[7]]);
    expect(history.nextBefore).toBe(posted[7]);
  });

  it('refuses a before that names no message of the history', async () => {
    const result = await mcp.call('get_audience_messages', { ...ids, before: 'msg_unknown' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('before');
  });

  it('caps the resource of the same history, newest first, naming where to continue', async () => {
    const read = await mcp.client.readResource({
      uri: `customer-api://pages/${ids.pageId}/audiences/${ids.audienceId}/messages`,
    });
    const [content] = read.contents;
    const text = content && 'text' in content ? content.text : '';
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(24_000);
    const history = JSON.parse(text) as { messages: { messageId: string }[]; nextBefore: string };
    expect(history.messages[0]?.messageId).toBe(posted[39]);
    expect(history.nextBefore).toBe(history.messages.at(-1)?.messageId);
  });
});
