import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { assistantScript } from '../test/assistant-script.js';
import { DEFAULT_TOOLSET } from '../tools/select.js';
import { type RunningHttpServer, startHttpServer } from './http.js';

const api = inject('api');
let http: RunningHttpServer;
const clients: Client[] = [];

beforeAll(async () => {
  http = await startHttpServer({ baseUrl: api.baseUrl, port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await http.close();
});

async function connect(headers: Record<string, string>, url = http.url) {
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { client, call };
}

/** A raw request, for headers fetch will not let us set (Host). */
function raw(options: { method?: string; path?: string; headers?: Record<string, string>; body?: string }) {
  const { port } = new URL(http.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: options.method ?? 'POST',
          path: options.path ?? '/mcp',
          headers: options.headers,
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    },
  );
}

/** The JSON-RPC message of a response, sent as JSON or as one server-sent event. */
function messageOf(body: string): { result: { tools: unknown[] } } {
  const data = body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? '');
  return JSON.parse(data);
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('Streamable HTTP transport', () => {
  it('runs the assistant script with the key from x-api-key', async () => {
    const { call } = await connect({ 'x-api-key': api.apiKey });
    await assistantScript(call, `http-${Date.now().toString(36)}`);
  });

  it('takes the key from Authorization: Bearer too', async () => {
    const { call } = await connect({ authorization: `Bearer ${api.apiKey}` });
    expect((await call('list_pages', { limit: 1 })).isError).toBeFalsy();
  });

  it('uses each request’s own key: a read-only client is shown no write tool while another writes', async () => {
    const writer = await connect({ 'x-api-key': api.apiKey });
    const reader = await connect({ 'x-api-key': api.readOnlyKey });
    const page = { name: 'http-keys', title: 'Keys', pageContext: '', brandId: 'b', pageType: 'custom' };
    const names = async (c: Client) => (await c.listTools()).tools.map((tool) => tool.name);
    expect(await names(writer.client)).toContain('create_page');
    expect(await names(reader.client)).not.toContain('create_page');
    expect(await names(reader.client)).toContain('list_pages');
    const [denied, allowed] = await Promise.allSettled([
      reader.call('create_page', page),
      writer.call('create_page', page),
    ]);
    expect(denied.status === 'rejected' && String(denied.reason)).toMatch(
      /Unknown tool create_page: .*write scope/,
    );
    expect(allowed.status === 'fulfilled' && !allowed.value.isError).toBe(true);
  });

  it('is stateless: no session id, and a request needs no earlier initialize', async () => {
    const init = await raw({ headers: { ...jsonHeaders, 'x-api-key': api.apiKey }, body: initialize });
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const list = await raw({
      headers: { ...jsonHeaders, 'x-api-key': api.apiKey, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(messageOf(list.body).result.tools.length).toBeGreaterThan(30);
  });

  it('answers 401 without an API key', async () => {
    const res = await raw({ headers: jsonHeaders, body: initialize });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('Bearer');
    expect(JSON.parse(res.body).error.message).toContain('x-api-key');
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const headers = { ...jsonHeaders, 'x-api-key': api.apiKey };
    expect((await raw({ headers: { ...headers, host: 'attacker.example' }, body: initialize })).status).toBe(
      403,
    );
    expect(
      (await raw({ headers: { ...headers, origin: 'https://attacker.example' }, body: initialize })).status,
    ).toBe(403);
    expect(
      (await raw({ headers: { ...headers, origin: 'http://localhost:6274' }, body: initialize })).status,
    ).toBe(200);
  });

  it('answers 405 to GET and DELETE, 400 to a body that is not JSON, and serves /healthz', async () => {
    const headers = { 'x-api-key': api.apiKey };
    expect((await raw({ method: 'GET', headers })).status).toBe(405);
    expect((await raw({ method: 'DELETE', headers })).status).toBe(405);
    const bad = await raw({ headers: { ...jsonHeaders, ...headers }, body: '{"jsonrpc":' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe(-32700);
    expect((await raw({ method: 'GET', path: '/healthz' })).status).toBe(200);
  });

  it('serves keyless requests with the shared key only when one is configured', async () => {
    const shared = await startHttpServer({
      baseUrl: api.baseUrl,
      port: 0,
      host: '127.0.0.1',
      sharedApiKey: api.readOnlyKey,
    });
    try {
      const { call } = await connect({}, shared.url);
      expect((await call('list_pages', { limit: 1 })).isError).toBeFalsy();
      await expect(call('archive_page', { pageId: 'page_00000000000000000000000000' })).rejects.toThrow(
        /Unknown tool archive_page: .*write scope/,
      );
    } finally {
      await shared.close();
    }
  });

  it('selects tools per request with X-MCP-Toolsets and X-MCP-Readonly, within the server’s limits', async () => {
    const names = async (headers: Record<string, string>, url = http.url) => {
      const { client } = await connect({ 'x-api-key': api.apiKey, ...headers }, url);
      return (await client.listTools()).tools.map((tool) => tool.name);
    };
    expect(await names({ 'x-mcp-toolsets': 'default' })).toEqual(DEFAULT_TOOLSET);
    expect(await names({ 'x-mcp-toolsets': 'webhook-subscriptions', 'x-mcp-readonly': 'true' })).toEqual([
      'list_webhook_subscriptions',
      'get_webhook_subscription',
      'list_webhook_deliveries',
    ]);
    const limited = await startHttpServer({
      baseUrl: api.baseUrl,
      port: 0,
      host: '127.0.0.1',
      selection: { readOnly: true, toolsets: ['default'] },
    });
    try {
      // A header picks other toolsets, but never lifts the server's --read-only.
      const picked = await names({ 'x-mcp-toolsets': 'topics', 'x-mcp-readonly': 'false' }, limited.url);
      expect(picked).toEqual(['list_topics', 'get_topic']);
    } finally {
      await limited.close();
    }
    const bad = await raw({
      headers: { ...jsonHeaders, 'x-api-key': api.apiKey, 'x-mcp-toolsets': 'nope' },
      body: initialize,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('Unknown toolset nope');
    const badFlag = await raw({
      headers: { ...jsonHeaders, 'x-api-key': api.apiKey, 'x-mcp-readonly': 'yes' },
      body: initialize,
    });
    expect(badFlag.status).toBe(400);
  });

  it('applies the safety switches to every request', async () => {
    const readOnly = await startHttpServer({
      baseUrl: api.baseUrl,
      port: 0,
      host: '127.0.0.1',
      selection: { readOnly: true, toolsets: ['pages'] },
    });
    try {
      const { client } = await connect({ 'x-api-key': api.apiKey }, readOnly.url);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_pages', 'get_page']);
      await expect(client.callTool({ name: 'delete_page', arguments: { pageId: 'x' } })).rejects.toThrow(
        /Unknown tool/,
      );
    } finally {
      await readOnly.close();
    }
  });
});
