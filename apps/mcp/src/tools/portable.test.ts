import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, errorObjectOf, textOf } from '../test/connect.js';
import {
  type AllowedViolation,
  checkTool,
  groupViolations,
  type Violation,
} from '../test/provider-limits.js';

const api = inject('api');
const ALLOWED = JSON.parse(
  readFileSync(new URL('../test/provider-limits.allow.json', import.meta.url), 'utf8'),
) as AllowedViolation[];

let mcp: Connected;
beforeAll(async () => {
  mcp = await connectInMemory(api, { selection: { toolsets: ['all'] } });
});
afterAll(async () => {
  await mcp.close();
});

const rules = (violations: Violation[]) => [...new Set(violations.map((v) => `${v.provider}: ${v.rule}`))];

describe('input schemas within the providers’ function-calling limits', () => {
  it('breaks no limit of OpenAI strict mode, Gemini or LangChain beyond the committed allow-list', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools).toHaveLength(46);
    const found = groupViolations(tools.flatMap((t) => checkTool(t as never)));
    // Exact: a new violation fails, and so does an entry nothing breaks any more.
    expect(found).toEqual(ALLOWED.map(({ reason: _reason, ...group }) => group));
    for (const entry of ALLOWED) expect(entry.reason.length, entry.rule).toBeGreaterThan(80);
  });

  it('reports each shape the providers refuse, so the check cannot pass silently', () => {
    const found = checkTool({
      name: 'stand_in',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['part', 'payload', 'tags', 'site'],
        properties: {
          part: { oneOf: [{ type: 'object', properties: { type: { const: 'text' } } }] },
          payload: { type: 'object', additionalProperties: {} },
          tags: { type: 'array' },
          site: { type: ['string', 'null'], format: 'uri', default: null },
        },
      },
    });
    expect(rules(found)).toEqual(
      expect.arrayContaining([
        'openai-strict: keyword oneOf',
        'gemini: keyword const',
        'langchain: oneOf is merged',
        'openai-strict: additionalProperties false',
        'gemini: object with properties',
        'openai-strict: array items',
        'gemini: one type per schema',
        'openai-strict: format uri',
        'gemini: format uri',
        'openai-strict: keyword default',
      ]),
    );
  });

  it('writes no format a provider refuses: uri and email are said in the description', async () => {
    const { tools } = await mcp.client.listTools();
    const tool = (name: string) => tools.find((t) => t.name === name)?.inputSchema.properties ?? {};
    const site = tool('create_webhook_subscription').url as Record<string, unknown>;
    expect(site).not.toHaveProperty('format');
    expect(site.description).toMatch(/absolute URL/);
    expect(tool('create_person').email).not.toHaveProperty('format');
    expect(tool('recover_webhook_deliveries').since).toMatchObject({ format: 'date-time' });
  });
});

describe('free-form JSON as JSON text', () => {
  it('records an account log whose payloadJson is the JSON text of its payload', async () => {
    const created = await mcp.call('create_account_log', {
      source: 'portable-test',
      type: 'note-added',
      domain: 'portable.example.com',
      payloadJson: JSON.stringify({ client: 'x', seats: 3, tags: ['a'] }),
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    const { accountId, accountLogId } = created.structuredContent as Record<string, string>;
    const activity = await mcp.call('list_account_activity', {
      accountId,
      fields: ['accountLogId', 'payload'],
    });
    const items = (activity.structuredContent as { items: { accountLogId: string; payload: unknown }[] })
      .items;
    expect(items.find((i) => i.accountLogId === accountLogId)?.payload).toEqual({
      client: 'x',
      seats: 3,
      tags: ['a'],
    });
  });

  it('refuses text that is not JSON, or not an object, naming payloadJson and sending nothing', async () => {
    const notJson = await mcp.call('create_account_log', { source: 's', payloadJson: '{client: x}' });
    expect(notJson.isError).toBe(true);
    expect(textOf(notJson)).toMatch(/payloadJson: Not valid JSON/);
    expect(errorObjectOf(notJson)).not.toHaveProperty('requestId');
    const notObject = await mcp.call('create_account_log', { source: 's', payloadJson: '[1, 2]' });
    expect(notObject.isError).toBe(true);
    expect(textOf(notObject)).toMatch(/payloadJson/);
  });

  it('points a caller passing payload as an object to payloadJson', async () => {
    const result = await mcp.call('create_account_log', { source: 's', payload: { client: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/payload: Unknown argument; give it as payloadJson/);
  });
});

describe('message parts as one object with a type', () => {
  let ids: { pageId: string; audienceId: string };
  beforeAll(async () => {
    const page = await mcp.call('create_page', {
      name: 'portable-parts',
      title: 'Parts',
      pageContext: 'Message parts',
      brandId: 'brand_parts',
      pageType: 'inbound',
    });
    const { pageId } = page.structuredContent as { pageId: string };
    const audience = await mcp.call('create_audience', { pageId });
    ids = { pageId, audienceId: (audience.structuredContent as { audienceId: string }).audienceId };
  });

  it('stores text, tool-call and error parts, and tool calls with JSON-text arguments', async () => {
    const result = await mcp.call('create_audience_message', {
      ...ids,
      role: 'assistant',
      content: 'Looked it up.',
      toolCalls: [
        {
          id: 'call_1',
          name: 'lookup',
          status: 'complete',
          argumentsJson: '{"q":"pricing"}',
          resultJson: '"found"',
        },
      ],
      contentParts: [
        { type: 'text', text: 'Looked it up.' },
        { type: 'tool-call', toolCallId: 'call_1' },
        { type: 'error', variant: 'generic', title: 'Partial', message: 'One source was down.' },
      ],
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    const history = await mcp.call('get_audience_messages', ids);
    const [message] = (history.structuredContent as { messages: Record<string, unknown>[] }).messages;
    expect(message?.toolCalls).toEqual([
      expect.objectContaining({ id: 'call_1', arguments: { q: 'pricing' }, result: 'found' }),
    ]);
    expect(message?.contentParts).toEqual([
      { type: 'text', text: 'Looked it up.' },
      { type: 'tool-call', toolCallId: 'call_1' },
      { type: 'error', variant: 'generic', title: 'Partial', message: 'One source was down.' },
    ]);
  });

  it('refuses a part with a field its type does not take, naming the part', async () => {
    const result = await mcp.call('create_audience_message', {
      ...ids,
      role: 'assistant',
      content: 'x',
      contentParts: [{ type: 'text', text: 'x', toolCallId: 'call_1' }],
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/contentParts\.0/);
    expect(textOf(result)).toMatch(/toolCallId/);
  });
});
