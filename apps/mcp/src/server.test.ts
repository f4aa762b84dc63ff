import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, errorObjectOf, textOf } from './test/connect.js';

const api = inject('api');
let mcp: Connected;
const run = Math.random().toString(36).slice(2, 8);

async function createPage(name: string, extra: Record<string, unknown> = {}) {
  const result = await mcp.call('create_page', {
    name,
    title: `Title of ${name}`,
    pageContext: 'context',
    brandId: 'brand_1',
    pageType: 'inbound',
    ...extra,
  });
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent as { pageId: string; name: string; status: string };
}

beforeAll(async () => {
  mcp = await connectInMemory(api);
});
afterAll(async () => {
  await mcp.close();
});

describe('tools over the real API', () => {
  it('lists one tool per contract operation', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools).toHaveLength(JSON_OPERATION_NAMES.length);
    expect(tools.map((t) => t.name)).toContain('get_audience_messages');
  });

  it('returns the created page as structuredContent and the same JSON as text', async () => {
    const page = await createPage(`mcp-${run}-one`);
    const result = await mcp.call('get_page', { pageId: page.pageId });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      pageId: page.pageId,
      name: `mcp-${run}-one`,
      status: 'draft',
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('pages list results 10 at a time and explains how to get the next page', async () => {
    for (let i = 0; i < 11; i++) await createPage(`mcp-${run}-list-${i}`);
    const first = await mcp.call('list_pages');
    const page = first.structuredContent as {
      items: { pageId: string }[];
      hasMore: boolean;
      nextCursor: string;
    };
    expect(page.items).toHaveLength(10);
    expect(page.hasMore).toBe(true);
    expect(textOf(first, 1)).toContain(`cursor="${page.nextCursor}"`);
    const second = await mcp.call('list_pages', { cursor: page.nextCursor });
    const next = second.structuredContent as { items: { pageId: string }[] };
    expect(next.items.length).toBeGreaterThan(0);
    const firstIds = new Set(page.items.map((p) => p.pageId));
    expect(next.items.some((p) => firstIds.has(p.pageId))).toBe(false);
  });

  it('returns only the selected fields', async () => {
    const result = await mcp.call('list_pages', { limit: 3, fields: ['pageId', 'name'] });
    const items = (result.structuredContent as { items: object[] }).items;
    expect(items).toHaveLength(3);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(['name', 'pageId']);
  });

  it('cuts a result that exceeds the cap and says so, keeping it valid for the output schema', async () => {
    const small = await connectInMemory(api, { maxResultBytes: 2_000 });
    try {
      for (let i = 0; i < 3; i++) await createPage(`mcp-${run}-big-${i}`, { pageContext: 'x'.repeat(600) });
      // The long field is asked for: summaries (the default) would fit.
      const result = await small.call('list_pages', { limit: 5, fields: ['pageId', 'pageContext'] });
      expect(result.isError).toBeFalsy();
      expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(2_000);
      const items = (result.structuredContent as { items: unknown[] }).items;
      expect(items.length).toBeLessThan(5);
      expect(textOf(result, 1)).toContain(`Only ${items.length} items fit in 2000 bytes`);
      expect(textOf(result, 1)).not.toContain('limit=');
    } finally {
      await small.close();
    }
  });
});

describe('errors as tool results', () => {
  it('reports an API error with its full error object and no structuredContent', async () => {
    const result = await mcp.call('get_page', { pageId: 'page_00000000000000000000000000' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^get_page failed: NOT_FOUND \(404\)/);
    expect(textOf(result)).toContain('What to do: An id does not exist');
    expect(errorObjectOf(result)).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      requestId: expect.stringMatching(/\S/),
    });
  });

  it('reports a state conflict with a hint to read the resource again', async () => {
    const page = await createPage(`mcp-${run}-conflict`);
    const result = await mcp.call('restore_page', { pageId: page.pageId });
    expect(result.isError).toBe(true);
    expect(errorObjectOf(result)).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(textOf(result)).toContain('Read the resource again');
  });

  it('rejects bad arguments before calling the API, naming each argument', async () => {
    const result = await mcp.call('get_page', { pageID: 'x', limit: 3 });
    expect(result.isError).toBe(true);
    const error = errorObjectOf(result);
    expect(error.code).toBe('VALIDATION_ERROR');
    const issues = (error.details as { issues: { path: string[] }[] }[])[0]?.issues ?? [];
    expect(issues.map((i) => i.path[0]).sort()).toEqual(['limit', 'pageID', 'pageId']);
    expect(textOf(result)).toContain('get_page takes pageId, fields');
  });

  it('rejects an out-of-range limit and an unknown field name', async () => {
    const result = await mcp.call('list_pages', { limit: 500, fields: ['nope'] });
    expect(result.isError).toBe(true);
    const paths = (
      (errorObjectOf(result).details as { issues: { path: string[] }[] }[])[0]?.issues ?? []
    ).map((i) => i.path[0]);
    expect(paths.sort()).toEqual(['fields', 'limit']);
  });

  it('reports a read-only key writing as FORBIDDEN', async () => {
    const readOnly = await connectInMemory({ baseUrl: api.baseUrl, apiKey: api.readOnlyKey });
    try {
      const result = await readOnly.call('archive_page', { pageId: 'page_00000000000000000000000000' });
      expect(result.isError).toBe(true);
      expect(errorObjectOf(result)).toMatchObject({ code: 'FORBIDDEN', status: 403 });
      expect(textOf(result)).toContain('Do not retry');
    } finally {
      await readOnly.close();
    }
  });

  it('reports an unreachable API and keeps serving', async () => {
    const offline = await connectInMemory({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    try {
      const result = await offline.call('list_pages');
      expect(result.isError).toBe(true);
      expect(errorObjectOf(result)).toMatchObject({ code: 'CONNECTION_ERROR' });
      expect((await offline.client.listTools()).tools.length).toBe(JSON_OPERATION_NAMES.length);
    } finally {
      await offline.close();
    }
  });

  it('answers nonsense arguments to every tool with a validation result, never a crash', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const required = (tool.inputSchema.required ?? []) as string[];
      const wrongTypes = Object.fromEntries(required.map((name) => [name, { nested: [1, null] }]));
      for (const args of [{ bogus: { deep: [1, null] } }, wrongTypes]) {
        if (Object.keys(args).length === 0) continue;
        const result = await mcp.call(tool.name, args);
        expect(result.isError, tool.name).toBe(true);
        expect(errorObjectOf(result).code, tool.name).toBe('VALIDATION_ERROR');
      }
    }
    expect((await mcp.call('list_pages', { limit: 1 })).isError).toBeFalsy();
  });

  it('answers an unknown tool with a protocol error, its code said once', async () => {
    const error = (await mcp.call('drop_database').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/Unknown tool drop_database/);
    expect(error.message.match(/-32602/g)).toHaveLength(1);
  });

  it('declares in initialize that the tool and resource lists never change', () => {
    expect(mcp.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: false },
      resources: { listChanged: false },
    });
  });
});
