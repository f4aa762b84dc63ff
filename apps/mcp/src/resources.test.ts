import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory } from './test/connect.js';

const api = inject('api');
let mcp: Connected;
let pageId: string;
let audienceId: string;

beforeAll(async () => {
  mcp = await connectInMemory(api);
  const page = await mcp.call('create_page', {
    name: 'resource-page',
    title: 'Resource page',
    pageContext: 'ctx',
    brandId: 'b',
    pageType: 'custom',
  });
  pageId = (page.structuredContent as { pageId: string }).pageId;
  const audience = await mcp.call('create_audience', { pageId });
  audienceId = (audience.structuredContent as { audienceId: string }).audienceId;
  await mcp.call('create_audience_message', { pageId, audienceId, role: 'user', content: 'remember me' });
});
afterAll(async () => {
  await mcp.close();
});

function textOf(contents: ({ text: string } | { blob: string })[]): string {
  const [first] = contents;
  return first && 'text' in first ? first.text : '';
}

describe('resources', () => {
  it('offers URI templates for pages and audience message histories', async () => {
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'customer-api://pages/{pageId}',
      'customer-api://pages/{pageId}/audiences/{audienceId}/messages',
    ]);
  });

  it('lists recent pages as resources', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources).toContainEqual(
      expect.objectContaining({
        uri: `customer-api://pages/${pageId}`,
        name: 'resource-page',
        mimeType: 'application/json',
      }),
    );
  });

  it('reads a page and a message history as JSON', async () => {
    const page = await mcp.client.readResource({ uri: `customer-api://pages/${pageId}` });
    const [content] = page.contents;
    expect(content?.mimeType).toBe('application/json');
    expect(JSON.parse(textOf(page.contents))).toMatchObject({ pageId, name: 'resource-page' });
    const history = await mcp.client.readResource({
      uri: `customer-api://pages/${pageId}/audiences/${audienceId}/messages`,
    });
    const messages = JSON.parse(textOf(history.contents)).messages as { content: string }[];
    expect(messages.map((m) => m.content)).toEqual(['remember me']);
  });

  it('answers an unknown page with the resource-not-found error (-32602 since 2026-07-28) carrying the API error', async () => {
    const error = await mcp.client
      .readResource({ uri: 'customer-api://pages/page_unknown' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).data).toMatchObject({
      uri: 'customer-api://pages/page_unknown',
      code: 'NOT_FOUND',
      status: 404,
    });
  });

  it('completes page ids', async () => {
    const completion = await mcp.client.complete({
      ref: { type: 'ref/resource', uri: 'customer-api://pages/{pageId}' },
      argument: { name: 'pageId', value: pageId.slice(0, -2) },
    });
    expect(completion.completion.values).toContain(pageId);
  });

  it('offers no resources when the tools reading them are switched off', async () => {
    const accountsOnly = await connectInMemory(api, { selection: { toolsets: ['accounts'] } });
    try {
      await expect(accountsOnly.client.listResourceTemplates()).rejects.toThrow();
    } finally {
      await accountsOnly.close();
    }
  });
});
