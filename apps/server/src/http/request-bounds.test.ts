import { JSON_PAYLOAD_MAX_BYTES, TEXT_BOUNDS } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { send } from '../test/accounts.js';
import { expectApiError } from '../test/http-cases.js';
import { useTestApp } from '../test/test-app.js';

const t = useTestApp();

const topicTitles = async () =>
  ((await send(t, 'GET', '/v0/topics?limit=100')).json().items as Array<{ title: string }>).map(
    (topic) => topic.title,
  );

/** The paths of the body issues of a 400. */
const issuePaths = (body: { details?: Array<{ field: string; issues: Array<{ path: string[] }> }> }) =>
  (body.details ?? []).filter((d) => d.field === 'body').flatMap((d) => d.issues.map((i) => i.path));

const page = (extra: Record<string, unknown>) => ({
  name: 'Launch',
  title: 'Launch',
  pageContext: 'c',
  brandId: 'brand_1',
  pageType: 'custom',
  ...extra,
});

describe('bounded request fields', () => {
  it('refuses a 900,000-character topic title with 400 naming title, and stores nothing', async () => {
    const before = await topicTitles();
    const res = await send(t, 'POST', '/v0/topics', { title: 'x'.repeat(900_000) });
    const body = expectApiError(res, 'VALIDATION_ERROR');
    expect(body.detail).toContain('title: at most 500 characters');
    expect(await topicTitles()).toEqual(before);
  });

  it('refuses a topic title one character over its bound with the issue at title', async () => {
    const res = await send(t, 'POST', '/v0/topics', { title: 'x'.repeat(TEXT_BOUNDS.title + 1) });
    expect(issuePaths(expectApiError(res, 'VALIDATION_ERROR'))).toEqual([['title']]);
    const renamed = await send(t, 'POST', '/v0/topics', { title: 'x'.repeat(TEXT_BOUNDS.title) });
    expect(renamed.statusCode).toBe(201);
    const patch = await send(t, 'PATCH', `/v0/topics/${renamed.json().topicId}`, {
      title: 'y'.repeat(TEXT_BOUNDS.title + 1),
    });
    expect(issuePaths(expectApiError(patch, 'VALIDATION_ERROR'))).toEqual([['title']]);
  });

  it('refuses 101 metadata keywords and 101 footer links, naming each array', async () => {
    const keywords = Array.from({ length: 101 }, (_, i) => `k${i}`);
    const links = Array.from({ length: 101 }, (_, i) => ({ text: 't', url: 'https://x.test', id: `l${i}` }));
    const res = await send(
      t,
      'POST',
      '/v0/pages',
      page({ metadata: { keywords }, footerLinks: [{ id: 'g', title: 'Links', links }] }),
    );
    expect(issuePaths(expectApiError(res, 'VALIDATION_ERROR')).sort()).toEqual([
      ['footerLinks', '0', 'links'],
      ['metadata', 'keywords'],
    ]);
    expect(
      (await send(t, 'POST', '/v0/pages', page({ metadata: { keywords: keywords.slice(1) } }))).statusCode,
    ).toBe(201);
  });

  it('refuses a script and an action longer than their bounds, naming the field', async () => {
    const script = {
      content: 'x'.repeat(TEXT_BOUNDS.longText + 1),
      enabled: true,
      name: 's',
      description: '',
    };
    const action = {
      actionId: 'a',
      actionIndex: 0,
      purpose: '',
      buttonTitle: 'b'.repeat(TEXT_BOUNDS.name + 1),
      actionType: 'link',
      url: 'https://x.test',
    };
    const res = await send(t, 'POST', '/v0/pages', page({ scripts: [script], actions: [action] }));
    expect(issuePaths(expectApiError(res, 'VALIDATION_ERROR')).sort()).toEqual([
      ['actions', '0', 'buttonTitle'],
      ['scripts', '0', 'content'],
    ]);
  });

  it('refuses an account log payload over 64 KiB naming payload, and takes one of 64 KiB', async () => {
    const padding = JSON.stringify({ blob: '' }).length;
    const exact = { blob: 'x'.repeat(JSON_PAYLOAD_MAX_BYTES - padding) };
    const log = (payload: unknown) =>
      send(t, 'POST', '/v0/account_logs', { source: 'crm', domain: 'bounds.example', payload });
    expect((await log(exact)).statusCode).toBe(201);
    const over = await log({ blob: `${exact.blob}x` });
    expect(issuePaths(expectApiError(over, 'VALIDATION_ERROR'))).toEqual([['payload']]);
  });
});

describe('content types', () => {
  const post = (headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/v0/topics',
      headers: { ...t.auth(), ...headers },
      payload: JSON.stringify({ title: 'Typed' }),
    });

  it('answers a JSON body sent as text/plain as one without Content-Type: 400 asking for JSON', async () => {
    const plain = expectApiError(await post({ 'content-type': 'text/plain' }), 'VALIDATION_ERROR');
    const none = expectApiError(await post({ 'content-type': '' }), 'VALIDATION_ERROR');
    expect(plain.detail).toBe('Unsupported Content-Type; send application/json.');
    expect(none.detail).toBe(plain.detail);
    expect(plain.details).toEqual(none.details);
    expect(await topicTitles()).not.toContain('Typed');
  });

  it('still takes application/json with a charset', async () => {
    const res = await post({ 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode).toBe(201);
  });
});
