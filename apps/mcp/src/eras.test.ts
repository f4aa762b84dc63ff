import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { TOOL_NAMES } from './index.js';
import { assistantScript } from './test/assistant-script.js';
import { useHttpServer } from './test/http-server.js';
import { connect, type Era, type Session, type Target, type ToolResult, type Via } from './test/sessions.js';
import { type RunningHttpServer, startHttpServer } from './transports/http.js';

const api = inject('api');
const http = useHttpServer();
const open: Session[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
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
