import { afterAll, describe, expect, inject, it } from 'vitest';
import { TOOL_NAMES } from './index.js';
import { useHttpServer } from './test/http-server.js';
import { post, type RawStdio, type RpcResponse, rawStdio } from './test/raw.js';
import { DEFAULT_TOOLSET } from './tools/select.js';

const api = inject('api');
const http = useHttpServer();

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
