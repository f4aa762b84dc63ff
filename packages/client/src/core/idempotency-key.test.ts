import { describe, expect, it } from 'vitest';
import { json, reset } from '../test/fake-server.js';
import {
  created,
  internal,
  LOG,
  LOG_BODY,
  ok,
  PAGE,
  PAGE_BODY,
  unavailable,
  useScriptedServer,
} from '../test/scripted-server.js';

const { scripted } = useScriptedServer();

describe('automatic idempotency key', () => {
  it('is added to createAccountLog and kept across its retries (503, 500, reset)', async () => {
    const { client, requests } = await scripted([unavailable, internal, reset, created], { maxRetries: 3 });
    await expect(client.createAccountLog({ body: LOG_BODY })).resolves.toEqual(LOG);
    expect(requests).toHaveLength(4);
    const keys = requests.map((r) => JSON.parse(r.body).idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('differs between two calls and never replaces the caller’s key', async () => {
    const { client, requests } = await scripted([created]);
    await client.createAccountLog({ body: LOG_BODY });
    await client.createAccountLog({ body: LOG_BODY });
    await client.createAccountLog({ body: { ...LOG_BODY, idempotencyKey: 'mine' } });
    const keys = requests.map((r) => JSON.parse(r.body).idempotencyKey);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('mine');
  });

  it('is not added to bodies without an idempotencyKey field; the header carries one', async () => {
    const { client, requests } = await scripted([(res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual(PAGE_BODY);
    expect(requests[0]?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('Idempotency-Key header', () => {
  it('is fresh per POST and PATCH call, and sent with maxRetries: 0', async () => {
    const { client, requests } = await scripted([(res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    await client.createPage({ body: PAGE_BODY }, { maxRetries: 0 });
    await client.updateTopic({ params: { topic_id: 't' }, body: { title: 'x' } }).catch(() => undefined);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys.every((k) => typeof k === 'string' && k.length === 36)).toBe(true);
    expect(new Set(keys).size).toBe(3);
  });

  it('is the caller’s when given as a request option, on every retry', async () => {
    const { client, requests } = await scripted([unavailable, internal, (res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY }, { idempotencyKey: 'job-42' });
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(['job-42', 'job-42', 'job-42']);
  });

  it('is not sent on GET or DELETE', async () => {
    const { client, requests } = await scripted([ok]);
    await client.getPage({ params: { page_id: 'p' } }, { idempotencyKey: 'ignored' });
    await client.deletePage({ params: { page_id: 'p' } }).catch(() => undefined);
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });
});
