import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { TOOL_NAMES } from './index.js';
import { assistantScript } from './test/assistant-script.js';
import { envelope, modernHeaders, post, type RawStdio, type RpcResponse, rawStdio } from './test/raw.js';
import { connect, type Era, type Session, type Target, type ToolResult, type Via } from './test/sessions.js';
import { DEFAULT_TOOLSET } from './tools/select.js';
import { type RunningHttpServer, startHttpServer } from './transports/http.js';

const api = inject('api');
let http: RunningHttpServer;
const open: Session[] = [];

beforeAll(async () => {
  http = await startHttpServer({ baseUrl: api.baseUrl, port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await http.close();
});

/** A 2025 client and a 2026-07-28 client, over stdio and over Streamable HTTP. */
const PATHS: Array<{ era: Era; via: Via }> = [
  { era: '2025', via: 'stdio' },
  { era: '2025', via: 'http' },
  { era: '2026-07-28', via: 'stdio' },
  { era: '2026-07-28', via: 'http' },
];

function target(era: Era, via: Via, extra: Partial<Target> = {}): Target {
  return via === 'http'
    ? { era, via, url: http.url, headers: { 'x-api-key': api.apiKey }, ...extra }
    : {
        era,
        via,
        env: { CUSTOMER_API_KEY: api.apiKey, CUSTOMER_API_BASE_URL: api.baseUrl, ...extra.env },
        ...extra,
      };
}

/** A session of its own, closed after the test. */
async function session(era: Era, via: Via, extra: Partial<Target> = {}): Promise<Session> {
  const s = await connect(target(era, via, extra));
  open.push(s);
  return s;
}

function textOf(result: ToolResult): string {
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

describe.each(PATHS)('a $era client over $via', ({ era, via }) => {
  const tag = () => `${era.slice(0, 4)}-${via}-${Date.now().toString(36)}`;
  // One session of the default server for the tests of this era and transport: each is a few
  // requests on it, and over stdio every session is a process start (about a second of CPU).
  let shared: Promise<Session> | undefined;
  const defaultSession = () => {
    shared ??= connect(target(era, via));
    return shared;
  };
  afterAll(async () => {
    await shared?.then(
      (s) => s.close(),
      () => {},
    );
  });

  it('lists every tool, with annotations', async () => {
    const s = await defaultSession();
    expect(s.revision).toBe(era === '2025' ? 'initialize' : era);
    const { tools } = await s.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    expect(tools.filter((t) => t.annotations?.readOnlyHint).length).toBeGreaterThan(10);
  });

  it('runs the assistant script: structured results, paging, a replayed write', async () => {
    const s = await defaultSession();
    await assistantScript(s.call, tag());
    // Over stdio the logs go to stderr as JSON lines (stdout is the protocol's), one per tool call.
    if (via === 'stdio') {
      const messages = s
        .stderr()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).msg);
      expect(messages).toContain('tool call');
    }
  });

  it('returns API failures and bad arguments as error results it can act on', async () => {
    const s = await defaultSession();
    const missing = await s.call('get_page', { pageId: 'page_missing' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^get_page failed: NOT_FOUND \(404\)/);
    const bad = await s.call('list_pages', { limit: 1000 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('nothing was sent to the API');
  });

  it('refuses an unknown tool with the protocol error naming it', async () => {
    const s = await defaultSession();
    await expect(s.call('drop_database')).rejects.toThrow(/Unknown tool drop_database/);
  });

  it('reads a page as a resource', async () => {
    const s = await defaultSession();
    const page = await s.call('create_page', {
      name: `resource-${tag()}`,
      title: 'Resource',
      pageContext: 'ctx',
      brandId: 'brand_eras',
      pageType: 'inbound',
    });
    const { pageId } = page.structuredContent as { pageId: string };
    const { contents } = await s.readResource(`customer-api://pages/${pageId}`);
    expect(JSON.parse(String(contents[0]?.text))).toMatchObject({ pageId });
  });

  it('links the pages a list shows to their resources (resource_link)', async () => {
    const s = await defaultSession();
    const result = await s.call('list_pages', { limit: 2 });
    const ids = (result.structuredContent as { items: { pageId: string }[] }).items.map((p) => p.pageId);
    const links = result.content.filter((block) => block.type === 'resource_link');
    expect(links.map((link) => link.uri)).toEqual(ids.map((id) => `customer-api://pages/${id}`));
  });

  it('lists only read tools when the server runs read-only', async () => {
    const s =
      via === 'stdio'
        ? await session(era, via, { args: ['--read-only'] })
        : await session(era, via, { url: (await readOnlyHttp()).url });
    const { tools } = await s.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });
});

let readOnly: RunningHttpServer | undefined;
async function readOnlyHttp(): Promise<RunningHttpServer> {
  readOnly ??= await startHttpServer({
    baseUrl: api.baseUrl,
    port: 0,
    host: '127.0.0.1',
    selection: { readOnly: true },
  });
  return readOnly;
}
afterAll(async () => {
  await readOnly?.close();
});

describe('2026-07-28 over Streamable HTTP: discovery, cache hints and the guards', () => {
  const headers = (method: string, name?: string, apiKey = api.apiKey) => ({
    'x-api-key': apiKey,
    ...modernHeaders(method, name),
  });
  const request = (method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { ...params, _meta: envelope() },
  });

  it('answers server/discover with an hour of caching, tools/list (per key) a private minute', async () => {
    const { message } = await post(http.url, request('server/discover'), headers('server/discover'));
    expect(message.result).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, completions: {} },
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'customer-api' } },
    });
    const tools = await post(http.url, request('tools/list'), headers('tools/list'));
    expect(tools.message.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const pages = await post(http.url, request('resources/list'), headers('resources/list'));
    expect(pages.message.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('declares no resources when the tools reading them are switched off', async () => {
    const accounts = await startHttpServer({
      baseUrl: api.baseUrl,
      port: 0,
      host: '127.0.0.1',
      selection: { toolsets: ['accounts'] },
    });
    try {
      const { message } = await post(accounts.url, request('server/discover'), headers('server/discover'));
      expect(message.result?.capabilities).toEqual({ tools: { listChanged: false } });
    } finally {
      await accounts.close();
    }
  });

  it('uses each request’s own key: the read-only key is shown no write tool and cannot call one', async () => {
    const listed = async (key: string) => {
      const { message } = await post(http.url, request('tools/list'), headers('tools/list', undefined, key));
      return ((message.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
    };
    expect(await listed(api.apiKey)).toContain('create_topic');
    const readOnly = await listed(api.readOnlyKey);
    expect(readOnly).toContain('list_topics');
    expect(readOnly).not.toContain('create_topic');
    const body = request('tools/call', {
      name: 'create_topic',
      arguments: { title: `ro-${Date.now().toString(36)}` },
    });
    const { message } = await post(http.url, body, headers('tools/call', 'create_topic', api.readOnlyKey));
    expect(message.error?.message).toMatch(
      /Unknown tool create_topic: .*needs the write scope this key lacks/,
    );
  });

  it('refuses a foreign Origin (403) and a body over 1 MiB (413) before reading the revision', async () => {
    const list = request('tools/list');
    const foreign = await post(http.url, list, {
      ...headers('tools/list'),
      origin: 'https://attacker.example',
    });
    expect(foreign.status).toBe(403);
    const big = request('tools/call', { name: 'list_pages', arguments: { cursor: 'x'.repeat(1_100_000) } });
    expect((await post(http.url, big, headers('tools/call', 'list_pages'))).status).toBe(413);
  });
});

describe.each(['2025-11-25', '2025-06-18', '2025-03-26'])('a %s client', (revision) => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  it('is served that revision over Streamable HTTP', async () => {
    const key = { 'x-api-key': api.apiKey };
    const init = await post(http.url, initialize, key);
    expect(init.message.result?.protocolVersion).toBe(revision);
    const tools = await post(http.url, list, { ...key, 'mcp-protocol-version': revision });
    expect(tools.message.result?.tools).toHaveLength(TOOL_NAMES.length);
  });

  /** resource_link content came with 2025-06-18: a 2025-03-26 client is sent none. */
  const linked = revision >= '2025-06-18';
  const listPages = {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'list_pages', arguments: { limit: 2 } },
  };
  const linksIn = (result: Record<string, unknown> | undefined) =>
    ((result?.content ?? []) as { type: string }[]).filter((block) => block.type === 'resource_link');

  it(`is sent ${linked ? '' : 'no '}resource links over Streamable HTTP`, async () => {
    const headers = { 'x-api-key': api.apiKey, 'mcp-protocol-version': revision };
    const { message } = await post(http.url, listPages, headers);
    expect(message.result?.structuredContent).toMatchObject({ items: [{}, {}] });
    expect(linksIn(message.result)).toHaveLength(linked ? 2 : 0);
  });

  // One stdio server (default toolset, which has list_pages) for this revision's stdio tests,
  // initialized once: every server is a process start.
  let stdio: Promise<{ server: RawStdio; init: RpcResponse }> | undefined;
  const initializedStdio = () => {
    stdio ??= (async () => {
      const server = rawStdio({
        CUSTOMER_API_KEY: api.apiKey,
        CUSTOMER_API_BASE_URL: api.baseUrl,
        MCP_TOOLSETS: '',
      });
      const init = await server.request(initialize);
      server.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
      );
      return { server, init };
    })();
    return stdio;
  };
  afterAll(async () => {
    const started = await stdio?.catch(() => undefined);
    if (!started || started.server.child.exitCode !== null) return;
    const exited = new Promise((resolve) => started.server.child.once('exit', resolve));
    started.server.child.stdin.end();
    await exited;
  });

  it(`is sent ${linked ? '' : 'no '}resource links over stdio`, async () => {
    const { server } = await initializedStdio();
    const response = await server.request(listPages);
    const { result } = response;
    expect(result?.structuredContent, JSON.stringify(response)).toMatchObject({ items: [{}, {}] });
    expect(linksIn(result)).toHaveLength(linked ? 2 : 0);
  });

  it('is served that revision over stdio, with the default toolset', async () => {
    const { server, init } = await initializedStdio();
    expect(init.result?.protocolVersion).toBe(revision);
    expect((await server.request(list)).result?.tools).toHaveLength(DEFAULT_TOOLSET.length);
  });
});
