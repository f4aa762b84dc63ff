import { connect } from 'node:net';
import { contract, MESSAGE_MAX_BYTES, TEXT_BOUNDS } from '@customer-api/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { bodyLimitOf } from './body-limits.js';
import { BODY_LIMIT } from './fastify-options.js';

const t = useTestApp();
let port: number;

beforeAll(async () => {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});
afterAll(async () => {
  await t.app.close();
});

/**
 * Writes a request head and `body` on a raw connection, never finishing the body, and resolves
 * with the first answer the server sends: it can only come from a refusal before the end.
 */
function firstAnswer(head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head + body));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (received.includes('"requestId"')) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

const headOf = (path: string, length: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.tenant.apiKey}\r\ncontent-type: application/json\r\n${length}\r\n`;

/** `value` as JSON with every character of every string escaped and 4 spaces a level. */
const escapedJson = (value: unknown) =>
  JSON.stringify(value, null, 4).replace(
    /"((?:[^"\\]|\\.)*)"/g,
    (_match, text: string) => `"${escapeUnits(JSON.parse(`"${text}"`) as string)}"`,
  );
const escapeUnits = (text: string) =>
  Array.from(
    { length: text.length },
    (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`,
  ).join('');

describe('body limits that follow from the bounds', () => {
  it('refuses an oversized message body from its Content-Length, before reading it', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    const answer = await firstAnswer(
      headOf(path, 'content-length: 1000000\r\n'),
      '{"role":"user","content":"',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"VALIDATION_ERROR"');
    expect(answer).toMatch(/connection: close/i);
    const limit = bodyLimitOf(contract.createAudienceMessage, BODY_LIMIT);
    expect(answer).toContain(`larger than ${limit.toLocaleString('en-US')} bytes`);
    expect(limit).toBeLessThan(BODY_LIMIT);
    expect(limit).toBeGreaterThanOrEqual(3 * MESSAGE_MAX_BYTES);
  });

  it('refuses a streamed body as soon as it passes the limit', async () => {
    const limit = bodyLimitOf(contract.createTopic, BODY_LIMIT);
    const chunk = 'x'.repeat(limit + 1);
    const answer = await firstAnswer(
      headOf('/v0/topics', 'transfer-encoding: chunked\r\n'),
      `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('title: at most 500 characters');
  });

  it('takes the largest valid topic with every character escaped and pretty-printed', async () => {
    const body = escapedJson({
      title: '😀'.repeat(TEXT_BOUNDS.title / 2),
      sortOrder: Number.MAX_SAFE_INTEGER,
      purpose: 'é'.repeat(TEXT_BOUNDS.text),
    });
    expect(body.length).toBeGreaterThan(6 * (TEXT_BOUNDS.title + TEXT_BOUNDS.text));
    const res = await t.app.inject({
      method: 'POST',
      url: '/v0/topics',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().purpose).toBe('é'.repeat(TEXT_BOUNDS.text));
  });

  it('takes a message of 200,000 bytes sent with its non-ASCII characters escaped', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const content = 'é'.repeat(TEXT_BOUNDS.longText);
    const body = escapedJson({ role: 'user', content });
    expect(body.length).toBeGreaterThan(600_000);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`,
      headers: { ...t.auth(), 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
  });

  it('keeps the 1 MiB limit where the bounds reach it, and about 1 KiB for empty bodies', () => {
    expect(bodyLimitOf(contract.createPage, BODY_LIMIT)).toBe(BODY_LIMIT);
    expect(bodyLimitOf(contract.restorePage, BODY_LIMIT)).toBeLessThan(2048);
  });
});
