import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, textOf } from './test/connect.js';

// Issue 16: lists return summary items by default, `fields` brings long fields back, and the
// records shown link their customer-api:// resources.
const api = inject('api');
const run = Math.random().toString(36).slice(2, 8);
const CONTEXT = 'c'.repeat(6_000);
let mcp: Connected;
const mine: string[] = [];

interface Item {
  pageId: string;
  name: string;
  pageContext?: string;
}
const itemsOf = (result: CallToolResult) => (result.structuredContent as { items: Item[] }).items;
const linksOf = (result: CallToolResult) => result.content.filter((block) => block.type === 'resource_link');

beforeAll(async () => {
  mcp = await connectInMemory(api);
  // The SDK client checks every structuredContent against the outputSchema it was listed with.
  await mcp.client.listTools();
  for (let i = 0; i < 12; i++) {
    const created = await mcp.call('create_page', {
      name: `summary-${run}-${i}`,
      title: `Summary ${i}`,
      pageContext: CONTEXT,
      brandId: 'b',
      pageType: 'custom',
    });
    mine.push((created.structuredContent as { pageId: string }).pageId);
  }
});
afterAll(async () => {
  await mcp.close();
});

/** Follows nextCursor to the end of the list; other test files add pages to the same tenant meanwhile. */
async function walk(args: Record<string, unknown>): Promise<CallToolResult[]> {
  const results: CallToolResult[] = [];
  let cursor: string | undefined;
  for (let call = 0; call < 200; call++) {
    const result = await mcp.call('list_pages', { limit: 10, ...args, ...(cursor ? { cursor } : {}) });
    expect(result.isError, textOf(result)).toBeFalsy();
    results.push(result);
    cursor = (result.structuredContent as { nextCursor: string | null }).nextCursor ?? undefined;
    if (!cursor) break;
  }
  return results;
}

describe('a list of pages with 6 KB contexts', () => {
  it('shows ten summaries in every result, where whole pages of 6 KB fit three', async () => {
    const summaries = await walk({});
    for (const result of summaries.slice(0, -1)) expect(itemsOf(result)).toHaveLength(10);
    for (const result of summaries) expect(textOf(result, 1)).not.toMatch(/Only \d+ items fit/);
    const items = summaries.flatMap(itemsOf);
    expect(mine.filter((id) => !items.some((item) => item.pageId === id))).toEqual([]);
    for (const item of items) {
      expect(item).toMatchObject({
        pageId: expect.any(String),
        name: expect.any(String),
        status: expect.any(String),
      });
      expect(item).not.toHaveProperty('pageContext');
      expect(item).not.toHaveProperty('actions');
    }
    expect(textOf(summaries[0] as CallToolResult, 1)).toContain(
      'Items are summaries without pageContext, actions',
    );
    expect(textOf(summaries[0] as CallToolResult, 1)).toContain('or get_page for one item');

    const full = await walk({ fields: ['pageId', 'name', 'pageContext'] });
    for (const result of full) {
      const shown = itemsOf(result).filter((item) => mine.includes(item.pageId));
      expect(shown.length).toBeLessThanOrEqual(3);
      expect(textOf(result, 1)).not.toContain('summaries');
    }
    expect(full.some((result) => /Only \d+ items fit in 24000 bytes/.test(textOf(result, 1)))).toBe(true);
  });

  it('brings the long field back when fields names it', async () => {
    const items = (await walk({ fields: ['pageId', 'pageContext'] })).flatMap(itemsOf);
    for (const id of mine) expect(items).toContainEqual({ pageId: id, pageContext: CONTEXT });
    for (const item of items) expect(Object.keys(item).sort()).toEqual(['pageContext', 'pageId']);
  });

  it('links each page shown to its resource, which resources/read returns in full', async () => {
    const result = await mcp.call('list_pages', { limit: 3 });
    const links = linksOf(result);
    expect(links).toEqual(
      itemsOf(result).map((item) => ({
        type: 'resource_link',
        uri: `customer-api://pages/${item.pageId}`,
        name: item.name,
        title: expect.any(String),
        mimeType: 'application/json',
      })),
    );
    const [first] = itemsOf(result);
    const [link] = links;
    const read = await mcp.client.readResource({ uri: link?.type === 'resource_link' ? link.uri : '' });
    const [content] = read.contents;
    const page = JSON.parse(content && 'text' in content ? content.text : '{}') as Item;
    expect(page).toMatchObject({ pageId: first?.pageId, pageContext: expect.any(String) });
  });

  it('links no page whose id fields left out', async () => {
    const result = await mcp.call('list_pages', { limit: 3, fields: ['name'] });
    expect(linksOf(result)).toEqual([]);
  });
});

describe('an audience', () => {
  it('links its message history from list_audiences and get_audience, and the link resolves', async () => {
    const pageId = mine[0] ?? '';
    const created = await mcp.call('create_audience', { pageId });
    const { audienceId } = created.structuredContent as { audienceId: string };
    await mcp.call('create_audience_message', { pageId, audienceId, role: 'user', content: `hello ${run}` });
    const uri = `customer-api://pages/${pageId}/audiences/${audienceId}/messages`;
    const listed = await mcp.call('list_audiences', { pageId });
    expect(linksOf(listed)).toContainEqual(expect.objectContaining({ type: 'resource_link', uri }));
    const one = await mcp.call('get_audience', { pageId, audienceId });
    expect(linksOf(one)).toEqual([
      expect.objectContaining({ uri, name: expect.stringMatching(/ messages$/) }),
    ]);
    const read = await mcp.client.readResource({ uri });
    expect(JSON.stringify(read.contents)).toContain(`hello ${run}`);
  });
});

describe('a server without the resources', () => {
  it('sends no link a client could not read (get_page switched off: no page resource)', async () => {
    const lists = await connectInMemory(api, { selection: { tools: ['list_pages'] } });
    try {
      const result = await lists.call('list_pages', { limit: 2 });
      expect(itemsOf(result)).toHaveLength(2);
      expect(linksOf(result)).toEqual([]);
    } finally {
      await lists.close();
    }
  });
});
