import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

type Call = (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;

function ok<T>(result: CallToolResult): T {
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  expect(result.isError, text).toBeFalsy();
  return result.structuredContent as T;
}

/**
 * What an assistant does in the "done when": create a page with an audience and a
 * message, list pages, read the audience's messages, and post an account log. Uses only tool
 * calls, so it runs unchanged over any transport.
 */
export async function assistantScript(call: Call, tag: string): Promise<void> {
  const page = ok<{ pageId: string }>(
    await call('create_page', {
      name: `assistant-${tag}`,
      title: 'Assistant page',
      pageContext: 'Made by the MCP end-to-end test',
      brandId: 'brand_e2e',
      pageType: 'inbound',
    }),
  );
  const listed = ok<{ items: { pageId: string }[] }>(
    await call('list_pages', { limit: 5, fields: ['pageId', 'name'] }),
  );
  expect(listed.items.map((p) => p.pageId)).toContain(page.pageId);

  const audience = ok<{ audienceId: string }>(
    await call('create_audience', { pageId: page.pageId, customName: 'Buyers' }),
  );
  const audiences = ok<{ items: { audienceId: string }[] }>(
    await call('list_audiences', { pageId: page.pageId }),
  );
  expect(audiences.items.map((a) => a.audienceId)).toEqual([audience.audienceId]);
  ok(
    await call('create_audience_message', {
      pageId: page.pageId,
      audienceId: audience.audienceId,
      role: 'user',
      content: `hello ${tag}`,
    }),
  );
  const history = ok<{ messages: { content: string }[] }>(
    await call('get_audience_messages', { pageId: page.pageId, audienceId: audience.audienceId }),
  );
  expect(history.messages.map((m) => m.content)).toContain(`hello ${tag}`);

  const log = {
    source: 'mcp-e2e',
    type: 'note-added',
    domain: `${tag}.example.com`,
    payloadJson: JSON.stringify({ tag }),
    idempotencyKey: `key-${tag}`,
  };
  const entry = ok<{ accountLogId: string; accountId: string }>(await call('create_account_log', log));
  const replay = await call('create_account_log', log);
  expect(ok<{ accountLogId: string }>(replay).accountLogId).toBe(entry.accountLogId);
  expect(replay.content[1]?.type === 'text' ? replay.content[1].text : '').toMatch(/^Replay:/);
  const activity = ok<{ items: { accountLogId?: string }[] }>(
    await call('list_account_activity', { accountId: entry.accountId }),
  );
  expect(activity.items.map((i) => i.accountLogId)).toContain(entry.accountLogId);
}
