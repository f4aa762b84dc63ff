import { describe, expect, inject, it } from 'vitest';
import { useHttpServer } from './test/http-server.js';
import { envelope, modernHeaders, post } from './test/raw.js';
import { startHttpServer } from './transports/http.js';

const api = inject('api');
const http = useHttpServer();

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
