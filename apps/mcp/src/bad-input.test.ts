import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useHttpServer } from './test/http-server.js';
import { envelope, modernHeaders, post, type RawStdio, rawStdio, toolCall } from './test/raw.js';

const api = inject('api');
const key = { 'x-api-key': api.apiKey };
const http = useHttpServer();

const list = (id: number, meta: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/list',
  params: { _meta: meta },
});
const withoutCapabilities = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const future = { ...envelope(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };

describe('bad input over Streamable HTTP', () => {
  it('answers a 2026-07-28 request without the required _meta with -32602 naming the missing key', async () => {
    const { status, message } = await post(http.url, list(1, withoutCapabilities), {
      ...key,
      ...modernHeaders('tools/list'),
    });
    expect(status).toBe(400);
    expect(message.error).toMatchObject({ code: -32602 });
    expect(message.error?.message).toMatch(/io\.modelcontextprotocol\/clientCapabilities: missing/);
  });

  it('answers a request whose header names 2026-07-28 but whose body has no _meta with -32602', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const { status, message } = await post(http.url, body, { ...key, ...modernHeaders('tools/list') });
    expect(status).toBe(400);
    expect(message.error?.code).toBe(-32602);
    expect(message.error?.message).toContain('missing the required per-request envelope key(s): _meta');
  });

  it('answers an unknown revision with -32022 listing the supported ones', async () => {
    const { message } = await post(http.url, list(1, future), {
      ...key,
      ...modernHeaders('tools/list'),
      'mcp-protocol-version': '2099-01-01',
    });
    expect(message.error).toMatchObject({
      code: -32022,
      message: 'Unsupported protocol version: 2099-01-01',
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    });
  });

  it('refuses a call whose Mcp-Name names another tool with 400 and -32020, running nothing', async () => {
    const body = toolCall(1, 'create_page', { name: 'never', title: 't', pageContext: 'c', brandId: 'b' });
    const { status, message } = await post(http.url, body, {
      ...key,
      ...modernHeaders('tools/call', 'list_pages'),
    });
    expect(status).toBe(400);
    expect(message.error?.code).toBe(-32020);
    expect(message.error?.message).toContain(
      'params.name="create_page" but the Mcp-Name header names "list_pages"',
    );
  });

  it('refuses a request whose Mcp-Method disagrees with the body', async () => {
    const { status, message } = await post(http.url, list(1, envelope()), {
      ...key,
      ...modernHeaders('tools/call'),
    });
    expect(status).toBe(400);
    expect(message.error?.code).toBe(-32020);
    expect(message.error?.message).toMatch(/Mcp-Method/i);
  });

  it('answers a 2025 initialize naming an unknown revision with one it supports', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    };
    const { message } = await post(http.url, initialize, key);
    expect(['2025-11-25', '2025-06-18', '2025-03-26']).toContain(message.result?.protocolVersion);
  });
});

describe('bad input over stdio', () => {
  let stdio: RawStdio;
  beforeAll(() => {
    stdio = rawStdio({ CUSTOMER_API_KEY: api.apiKey, CUSTOMER_API_BASE_URL: api.baseUrl });
  });
  afterAll(async () => {
    const exited = new Promise((resolve) => stdio.child.once('exit', resolve));
    stdio.child.stdin.end();
    await exited;
  });

  it('answers each bad request with its error and keeps serving, without a stack trace', async () => {
    const missing = await stdio.request(list(1, withoutCapabilities));
    expect(missing.error?.message).toMatch(/clientCapabilities: missing/);
    const unknown = await stdio.request(list(2, future));
    expect(unknown.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
    const forged = await stdio.request(
      toolCall(3, 'delete_page', { pageId: 'page_x' }, { requestState: 'v1.e30.c2ln', inputResponses: {} }),
    );
    expect(forged.error?.code).toBe(-32602);
    expect(forged.error?.message).toMatch(/confirmation state of this delete_page call is not valid/);
    const fine = await stdio.request(list(4, envelope()));
    expect(fine.result?.tools).toHaveLength(JSON_OPERATION_NAMES.length);
    expect(stdio.stderr()).not.toMatch(/Error|at /);
  });
});
