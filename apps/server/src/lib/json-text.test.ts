import { describe, expect, it, vi } from 'vitest';
import { JsonStream, jsonFragments, type Lane, toJsonBody } from '../http/json-stream.js';
import { useTestApp } from '../test/test-app.js';
import { holdingJsonText, JsonText, parseJsonText } from './json-text.js';

const stored = '[{"id": "c", "result": "é \\"q\\""}]';

describe('JsonText', () => {
  it('is written as its text where its marked object is reached, deeper than the depth opened', () => {
    const message = holdingJsonText({
      id: 'm',
      toolCalls: JsonText.of(stored),
      contentParts: JsonText.of(null),
    });
    const body = { conversation: null, messages: [message] };
    const text = `{"conversation":null,"messages":[{"id":"m","toolCalls":${stored},"contentParts":null}]}`;
    for (const depth of [2, 3, 5]) expect([...jsonFragments(body, depth)].join('')).toBe(text);
    // Not reached (inside a fragment JSON.stringify writes whole): the same values, compact.
    expect(JSON.parse([...jsonFragments(body, 1)].join(''))).toEqual(JSON.parse(text));
  });

  it('is never parsed on its way out', () => {
    const parse = vi.spyOn(JsonText.prototype, 'toJSON');
    const body = { messages: [holdingJsonText({ id: 'm', toolCalls: new JsonText(stored) })] };
    expect([...jsonFragments(body, 2)].join('')).toBe(`{"messages":[{"id":"m","toolCalls":${stored}}]}`);
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
  });

  it('is serialised as its value by JSON.stringify, which does not know it', () => {
    expect(JSON.stringify({ list: [new JsonText(stored)] })).toBe(
      JSON.stringify({ list: [[{ id: 'c', result: 'é "q"' }]] }),
    );
  });

  it('is parsed for checks that need values, copying only what holds one', () => {
    const untouched = { a: [1, { b: 2 }] };
    const body = { untouched, list: [holdingJsonText({ calls: new JsonText(stored) })] };
    const parsed = parseJsonText(body) as typeof body;
    expect(parsed).toEqual({ untouched, list: [{ calls: [{ id: 'c', result: 'é "q"' }] }] });
    expect(parsed.untouched).toBe(untouched);
    expect(parseJsonText(untouched)).toBe(untouched);
    expect(body.list[0]?.calls).toBeInstanceOf(JsonText); // the original is left as it was
  });

  it('goes out as bytes of its own when long, never copied into a longer string', async () => {
    const long = `["${'x'.repeat(200_000)}"]`;
    const free = (): Lane => ({ ready: Promise.resolve(), spend: () => 0, end: () => undefined });
    const stream = toJsonBody({ items: [holdingJsonText({ a: new JsonText(long) })] }, free);
    expect(stream).toBeInstanceOf(JsonStream);
    const chunks: string[] = [];
    for await (const chunk of stream as JsonStream) chunks.push((chunk as Buffer).toString());
    expect(chunks.join('')).toBe(`{"items":[{"a":${long}}]}`);
    expect(chunks).toContain(long);
  });
});

describe('message histories in production', () => {
  // Production sends stored JSON text as it is; elsewhere responses are validated as values.
  const t = useTestApp({ env: { NODE_ENV: 'production' } });
  const toolCalls = [
    {
      id: 'call_1',
      name: 'search',
      status: 'complete',
      arguments: { query: 'a "quoted" é 🙂 \u2028', nested: { list: [1, 2.5, null, true] } },
      result: 'line\nbreak',
    },
  ];
  const contentParts = [{ type: 'text', text: 'part' }];

  async function history(results: string[]) {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    for (const result of results) {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: t.auth(),
        payload: { role: 'assistant', content: 'c', toolCalls: [{ ...toolCalls[0], result }], contentParts },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    return path;
  }

  it('send tool calls and content parts as the JSON text stored, with the values posted', async () => {
    const path = await history(['line\nbreak']);
    const res = await t.app.inject({ url: path, headers: t.auth() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    const [message] = res.json().messages;
    expect(message.toolCalls).toEqual(toolCalls);
    expect(message.contentParts).toEqual(contentParts);
    expect(res.body).toContain(`"contentParts":${JSON.stringify(contentParts)}`);
  });

  it('stream a large history the same way', async () => {
    const results = Array.from({ length: 8 }, (_, i) => `${i}${'é'.repeat(100_000)}`);
    const path = await history(results);
    const res = await t.app.inject({ url: path, headers: t.auth() });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBeUndefined();
    const body = res.json();
    expect(
      body.messages.map((m: { toolCalls: Array<{ result: string }> }) => m.toolCalls[0]?.result),
    ).toEqual(results);
    expect(body.messages[7].toolCalls[0].arguments).toEqual(toolCalls[0]?.arguments);
  });
});
