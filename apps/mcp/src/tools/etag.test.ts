import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_CATALOG, etagMatches } from '@customer-api/contract';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Connected, connectInMemory, errorObjectOf, textOf } from '../test/connect.js';

// A topic API answering as the server does: an ETag on reads and writes, If-Match checked on
// updates (412 PRECONDITION_FAILED when stale). The tools' side is what is under test.
const TOPIC_ID = 'topic_01jd4x3k5n8q2r6t9v0w1y2z3a';
const state = { version: 1 };
const seen: IncomingHttpHeaders[] = [];
const tagOf = (version: number) => `"topic-version-${String(version).padStart(8, '0')}"`;
const topic = () => ({
  topicId: TOPIC_ID,
  title: `Topic v${state.version}`,
  purpose: null,
  sortOrder: 0,
  isDefault: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  entries: [],
});

let api: Server;
let mcp: Connected;

beforeAll(async () => {
  api = createServer((req, res) => {
    seen.push(req.headers);
    const ifMatch = req.headers['if-match'];
    if (req.method === 'PATCH' && ifMatch && !etagMatches(ifMatch, tagOf(state.version), 'strong')) {
      const { status, title } = ERROR_CATALOG.PRECONDITION_FAILED;
      const detail = 'The topic changed since it was read: send the current ETag';
      const body = { code: 'PRECONDITION_FAILED', detail, requestId: 'req_412', status, title, type: 'x' };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    if (req.method === 'PATCH') state.version++;
    res.writeHead(200, { 'content-type': 'application/json', etag: tagOf(state.version) });
    res.end(JSON.stringify(topic()));
  });
  api.listen(0, '127.0.0.1');
  await once(api, 'listening');
  const { port } = api.address() as AddressInfo;
  mcp = await connectInMemory(
    { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' },
    { selection: { toolsets: ['all'] } },
  );
});

afterAll(async () => {
  await mcp.close();
  api.close();
});

describe('etags in tools', () => {
  it('declares etag on results of tagged resources and expectedEtag on writes that take If-Match', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const input = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {});
    const output = (name: string) => Object.keys(byName.get(name)?.outputSchema?.properties ?? {});
    expect(output('get_topic')).toContain('etag');
    expect(output('update_topic')).toContain('etag');
    expect(output('create_topic')).toContain('etag');
    expect(output('list_topics')).not.toContain('etag');
    expect(input('update_topic')).toContain('expectedEtag');
    expect(input('delete_webhook_subscription')).toContain('expectedEtag');
    expect(input('create_topic')).not.toContain('expectedEtag');
    expect(input('get_topic')).not.toContain('expectedEtag');
    const described = byName.get('update_topic')?.inputSchema.properties?.expectedEtag as {
      description: string;
    };
    expect(described.description).toMatch(/from your last read .*only if nobody changed it since/);
  });

  it('shows the tag in the structured result and the text, whatever fields are selected', async () => {
    const read = await mcp.call('get_topic', { topicId: TOPIC_ID });
    expect(read.structuredContent).toMatchObject({ topicId: TOPIC_ID, etag: tagOf(state.version) });
    expect(JSON.parse(textOf(read))).toMatchObject({ etag: tagOf(state.version) });
    expect(textOf(read, 1)).toBe(
      'To change it only if nobody else has meanwhile, pass etag as expectedEtag to update_topic.',
    );
    const some = await mcp.call('get_topic', { topicId: TOPIC_ID, fields: ['title'] });
    expect(some.structuredContent).toEqual({ title: `Topic v${state.version}`, etag: tagOf(state.version) });
  });

  it('sends expectedEtag as If-Match, quoting a tag given without its quotes, and shows the new tag', async () => {
    const before = tagOf(state.version);
    const updated = await mcp.call('update_topic', { topicId: TOPIC_ID, title: 'a', expectedEtag: before });
    expect(updated.isError).toBeFalsy();
    expect(seen.at(-1)?.['if-match']).toBe(before);
    expect(updated.structuredContent).toMatchObject({ etag: tagOf(state.version) });
    const bare = tagOf(state.version).slice(1, -1);
    const again = await mcp.call('update_topic', { topicId: TOPIC_ID, title: 'b', expectedEtag: bare });
    expect(again.isError).toBeFalsy();
    expect(seen.at(-1)?.['if-match']).toBe(`"${bare}"`);
    await mcp.call('update_topic', { topicId: TOPIC_ID, title: 'c' });
    expect(seen.at(-1)?.['if-match']).toBeUndefined();
  });

  it('turns a stale tag into an error telling the model to read again', async () => {
    const stale = tagOf(state.version - 1);
    const version = state.version;
    const result = await mcp.call('update_topic', { topicId: TOPIC_ID, title: 'd', expectedEtag: stale });
    expect(result.isError).toBe(true);
    expect(state.version).toBe(version);
    expect(textOf(result)).toContain('update_topic failed: PRECONDITION_FAILED (412)');
    expect(textOf(result)).toContain(
      'What to do: Someone changed this resource since you read it, so nothing was changed. Call get_topic to read it again',
    );
    expect(errorObjectOf(result)).toMatchObject({ code: 'PRECONDITION_FAILED', requestId: 'req_412' });
  });

  it('refuses an empty expectedEtag before calling the API', async () => {
    const count = seen.length;
    const result = await mcp.call('update_topic', { topicId: TOPIC_ID, title: 'e', expectedEtag: ' ' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('expectedEtag');
    expect(seen.length).toBe(count);
  });
});

describe('etags against the API', () => {
  let real: Connected;
  beforeAll(async () => {
    real = await connectInMemory(inject('api'), { selection: { toolsets: ['all'] } });
  });
  afterAll(async () => {
    await real.close();
  });

  it('changes a topic only while its etag is current', async () => {
    const created = await real.call('create_topic', { title: `etag-${Date.now()}` });
    const { topicId, etag } = created.structuredContent as { topicId: string; etag: string };
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect((await real.call('get_topic', { topicId })).structuredContent).toMatchObject({ etag });
    const renamed = await real.call('update_topic', { topicId, title: 'renamed', expectedEtag: etag });
    expect(renamed.isError).toBeFalsy();
    const newEtag = (renamed.structuredContent as { etag: string }).etag;
    expect(newEtag).not.toBe(etag);
    const stale = await real.call('update_topic', { topicId, title: 'lost update', expectedEtag: etag });
    expect(stale.isError).toBe(true);
    expect(errorObjectOf(stale)).toMatchObject({ code: 'PRECONDITION_FAILED', status: 412 });
    expect(textOf(stale)).toContain('Call get_topic to read it again');
    const after = await real.call('get_topic', { topicId });
    expect(after.structuredContent).toMatchObject({ title: 'renamed', etag: newEtag });
  });
});
