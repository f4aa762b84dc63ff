import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useHttpServer } from './test/http-server.js';
import { checkTool } from './test/provider-limits.js';
import { MAIN } from './test/sessions.js';
import { deriveTools } from './tools/derive.js';
import { DEFAULT_TOOLSET } from './tools/select.js';

const api = inject('api');

/** Calls a tool the way a framework's agent would; returns the result's data, throws on an error result. */
type Call = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Tools every framework must call: the default toolset and every create tool. */
const REQUIRED = [
  ...new Set([
    ...DEFAULT_TOOLSET,
    ...deriveTools()
      .filter((t) => t.meta.kind === 'create')
      .map((t) => t.name),
  ]),
].sort();

const http = useHttpServer();

const stdio = {
  command: process.execPath,
  args: [MAIN],
  env: {
    PATH: process.env.PATH ?? '',
    CUSTOMER_API_KEY: api.apiKey,
    CUSTOMER_API_BASE_URL: api.baseUrl,
    MCP_TOOLSETS: 'all',
  },
};
const httpHeaders = () => ({ 'x-api-key': api.apiKey, 'x-mcp-toolsets': 'all' });

/**
 * An assistant's session through every required tool, with the argument shapes a model produces
 * from the listed schemas: JSON text for free-form values, message parts as `{type, …}` objects.
 * Returns the tools it called.
 */
async function everyRequiredTool(call: Call, tag: string): Promise<string[]> {
  const called: string[] = [];
  const run = async (name: string, args: Record<string, unknown>) => {
    called.push(name);
    return call(name, args);
  };
  const { pageId } = (await run('create_page', {
    name: `framework-${tag}`,
    title: 'Framework page',
    pageContext: 'Made by an agent framework',
    brandId: 'brand_frameworks',
    pageType: 'inbound',
  })) as { pageId: string };
  await run('list_pages', { limit: 3 });
  await run('get_page', { pageId, fields: ['pageId', 'title'] });
  const { audienceId } = (await run('create_audience', { pageId, customName: 'Buyers' })) as {
    audienceId: string;
  };
  await run('list_audiences', { pageId });
  await run('get_audience', { pageId, audienceId });
  await run('create_audience_version', { pageId, audienceId, supplementaryContext: 'Version one' });
  await run('create_audience_message', {
    pageId,
    audienceId,
    role: 'assistant',
    content: `hello ${tag}`,
    toolCalls: [
      { id: 'call_1', name: 'lookup', status: 'complete', argumentsJson: '{"q":"x"}', resultJson: '"ok"' },
    ],
    contentParts: [
      { type: 'text', text: `hello ${tag}` },
      { type: 'tool-call', toolCallId: 'call_1' },
    ],
  });
  const history = (await run('get_audience_messages', { pageId, audienceId })) as {
    messages: { content: string; contentParts: unknown }[];
  };
  expect(history.messages[0]?.contentParts).toEqual([
    { type: 'text', text: `hello ${tag}` },
    { type: 'tool-call', toolCallId: 'call_1' },
  ]);
  const { accountId } = (await run('create_account_log', {
    source: 'framework-test',
    type: 'note-added',
    domain: `${tag}.example.com`,
    payloadJson: JSON.stringify({ client: 'x' }),
  })) as { accountId: string };
  await run('list_accounts', { limit: 3 });
  await run('get_account', { accountId });
  const activity = (await run('list_account_activity', { accountId, fields: ['payload'] })) as {
    items: { payload?: unknown }[];
  };
  expect(activity.items.map((i) => i.payload)).toContainEqual({ client: 'x' });
  const { topicId } = (await run('create_topic', { title: `Topic ${tag}` })) as { topicId: string };
  await run('list_topics', {});
  await run('get_topic', { topicId });
  await run('create_asset', { name: `asset-${tag}`, data: { type: 'image', fileId: `file_${tag}` } });
  const { personId } = (await run('create_person', {
    name: 'Ada Agent',
    email: `${tag}@example.com`,
  })) as { personId: string };
  await run('create_person_log', {
    personId,
    source: 'framework-test',
    type: 'page-view',
    payloadJson: '{"path":"/pricing"}',
  });
  const { audienceSessionId } = (await run('create_audience_session', { audienceId })) as {
    audienceSessionId: string;
  };
  await run('create_audience_session_interaction', { audienceSessionId, componentId: 'cta', label: 'Book' });
  const { webhookSubscriptionId } = (await run('create_webhook_subscription', {
    url: 'https://hooks.example.com/customer-api',
    eventTypes: ['page.version.created'],
  })) as { webhookSubscriptionId: string };
  await run('recover_webhook_deliveries', {
    webhookSubscriptionId,
    since: new Date(Date.now() - 3_600_000).toISOString(),
  });
  // No delivery exists yet: reaching the API's NOT_FOUND shows the framework sent the call.
  await expect(
    run('redeliver_webhook_delivery', { webhookSubscriptionId, deliveryId: 'whdel_none' }),
  ).rejects.toThrow(/redeliver_webhook_delivery failed: NOT_FOUND/);
  return called;
}

/** The text of the first text block of what a LangChain MCP tool returns. */
function langchainText(output: unknown): string {
  if (typeof output === 'string') return output;
  const blocks = (Array.isArray(output) ? output : [output]) as { type?: string; text?: string }[];
  return blocks.find((b) => typeof b?.text === 'string')?.text ?? '';
}

/** JSON with object keys sorted: equal for equal schemas whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** Property paths where a simplified schema differs from the listed one (`tool.a[].b`). */
function changedPaths(listed: unknown, simplified: unknown, path: string): string[] {
  if (canonical(listed) === canonical(simplified)) return [];
  const a = listed as Record<string, unknown>;
  const b = simplified as Record<string, unknown>;
  if (a?.properties && b?.properties) {
    const inner = Object.keys(a.properties as object).flatMap((key) =>
      changedPaths(
        (a.properties as Record<string, unknown>)[key],
        (b.properties as Record<string, unknown>)[key],
        `${path}.${key}`,
      ),
    );
    return inner.length > 0 ? inner : [path];
  }
  if (a?.items && b?.items) return changedPaths(a.items, b.items, `${path}[]`);
  return [path];
}

describe.each(['stdio', 'http'] as const)('@langchain/mcp-adapters over %s', (via) => {
  let client: MultiServerMCPClient;
  let tools: Awaited<ReturnType<MultiServerMCPClient['getTools']>>;
  beforeAll(async () => {
    const connection =
      via === 'stdio'
        ? { transport: 'stdio' as const, ...stdio }
        : { transport: 'http' as const, url: http.url, headers: httpHeaders() };
    client = new MultiServerMCPClient({ mcpServers: { customer: connection }, throwOnLoadError: true });
    tools = await client.getTools();
  });
  afterAll(async () => {
    await client.close();
  });

  it('converts every tool, changing only the nullable properties the checker names', async () => {
    expect(tools).toHaveLength(46);
    for (const tool of deriveTools()) {
      const converted = tools.find((t) => t.name === tool.name);
      expect(converted, tool.name).toBeDefined();
      const expected = checkTool(tool)
        .filter((v) => v.provider === 'langchain')
        .map((v) => v.where);
      expect(changedPaths(tool.inputSchema, converted?.schema, tool.name).sort(), tool.name).toEqual(
        expected.sort(),
      );
    }
  });

  it('calls the default toolset and every create tool without refusing an argument', async () => {
    const call: Call = async (name, args) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      return JSON.parse(langchainText(await tool.invoke(args))) as Record<string, unknown>;
    };
    expect((await everyRequiredTool(call, `lc-${via}-${Date.now()}`)).sort()).toEqual(REQUIRED);
  });
});

describe.each(['stdio', 'http'] as const)('@ai-sdk/mcp over %s', (via) => {
  let client: Awaited<ReturnType<typeof createMCPClient>>;
  beforeAll(async () => {
    client = await createMCPClient({
      transport:
        via === 'stdio'
          ? new Experimental_StdioMCPTransport(stdio)
          : { type: 'http', url: http.url, headers: httpHeaders() },
    });
  });
  afterAll(async () => {
    await client.close();
  });

  it('calls the default toolset and every create tool', async () => {
    const tools = await client.tools();
    expect(Object.keys(tools)).toHaveLength(46);
    const call: Call = async (name, args) => {
      const tool = tools[name];
      if (!tool?.execute) throw new Error(`no tool ${name}`);
      const result = (await tool.execute(args, { toolCallId: `call-${name}`, messages: [] })) as {
        isError?: boolean;
        content: { type: string; text?: string }[];
        structuredContent?: Record<string, unknown>;
      };
      const text = result.content.find((c) => c.type === 'text')?.text ?? '';
      if (result.isError) throw new Error(text);
      return result.structuredContent ?? (JSON.parse(text) as Record<string, unknown>);
    };
    expect((await everyRequiredTool(call, `ai-${via}-${Date.now()}`)).sort()).toEqual(REQUIRED);
  });
});
