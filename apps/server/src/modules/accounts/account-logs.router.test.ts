import { AccountLogSchema } from '@customer-api/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TenantShare } from '../../db/tenant-share.js';
import { accountLog, send } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

// The app's clock runs ahead of the real one by `ahead` ms: a test moves time without waiting.
let ahead = 0;
// 50 concurrent requests of one tenant wait for its database share as long as they need: on a
// loaded machine the default 1 s queue answers some of them 429, which is not what these tests test.
const share = new TenantShare({ concurrency: 4, queueMs: 60_000 });
const t = useTestApp({ clock: () => new Date(Date.now() + ahead), tenantShare: share });

const getAccount = async (accountId: string) =>
  (await send(t, 'GET', `/v0/accounts/${accountId}`)).json() as Record<string, unknown>;
const activity = async (accountId: string) =>
  (
    await send(t, 'GET', `/v0/accounts/${accountId}/activity?includeDeleted=true&includePersonActivity=true`)
  ).json();

describe('POST /v0/account_logs: accounts', () => {
  it('creates the account of a new canonical domain and answers 201 with the entry', async () => {
    const res = await send(t, 'POST', '/v0/account_logs', {
      source: 'hubspot',
      type: 'contact-update',
      payload: { field: 'stage' },
      domain: 'https://WWW.Acme.com:443/pricing',
    });
    expect(res.statusCode, res.body).toBe(201);
    const log = AccountLogSchema.parse(res.json());
    expect(log).toMatchObject({ source: 'hubspot', type: 'contact-update' });
    expect(log.accountLogId).toMatch(/^accountlog_[0-9a-z]{26}$/);
    const account = await getAccount(log.accountId);
    expect(account).toMatchObject({ domain: 'acme.com', name: null, latestActivityAt: log.createdAt });
  });

  it('reuses the account for every spelling of its domain, internationalised ones included', async () => {
    const a = await accountLog(t, { domain: 'bücher.de' });
    const b = await accountLog(t, { domain: 'http://www.XN--BCHER-KVA.de/' });
    const c = await accountLog(t, { domain: 'Bücher.DE.' });
    expect(new Set([a.accountId, b.accountId, c.accountId]).size).toBe(1);
    expect(await getAccount(a.accountId)).toMatchObject({ domain: 'xn--bcher-kva.de' });
  });

  it('resolves by accountId, which wins over a domain given with it', async () => {
    const first = await accountLog(t, { domain: 'one.example' });
    const second = await accountLog(t, { accountId: first.accountId, domain: 'two.example' });
    expect(second.accountId).toBe(first.accountId);
    const list = (await send(t, 'GET', '/v0/accounts')).json();
    expect(list.totalCount).toBe(1);
  });

  it('answers 404 for an unknown accountId and for another tenant’s account', async () => {
    const unknown = { source: 'crm', payload: {}, accountId: `account_${'0'.repeat(26)}` };
    expectApiError(await send(t, 'POST', '/v0/account_logs', unknown), 'NOT_FOUND');
    const other = await t.seed.tenant();
    const foreign = await accountLog(t, { domain: 'foreign.example' }, other);
    const res = await send(t, 'POST', '/v0/account_logs', { ...unknown, accountId: foreign.accountId });
    expectApiError(res, 'NOT_FOUND');
    expect((await send(t, 'GET', '/v0/accounts')).json().totalCount).toBe(0);
  });

  it('answers 400 naming the domain when neither accountId nor a usable domain is given', async () => {
    for (const body of [
      { source: 'crm', payload: {} },
      { source: 'crm', payload: {}, domain: 'localhost' },
      { source: 'crm', payload: {}, domain: 'not a domain' },
      { source: 'crm', payload: {}, domain: 'https://' },
    ]) {
      const error = expectApiError(await send(t, 'POST', '/v0/account_logs', body), 'VALIDATION_ERROR');
      expect(error.details).toEqual([
        { field: 'body', issues: [expect.objectContaining({ code: 'validation_failed', path: ['domain'] })] },
      ]);
    }
  });

  it('renames the account when name is given, and keeps the name otherwise', async () => {
    const log = await accountLog(t, { domain: 'named.example', name: 'Named Inc.' });
    await accountLog(t, { accountId: log.accountId });
    expect(await getAccount(log.accountId)).toMatchObject({ name: 'Named Inc.' });
    await accountLog(t, { domain: 'named.example', name: 'Renamed Inc.' });
    expect(await getAccount(log.accountId)).toMatchObject({ name: 'Renamed Inc.' });
  });

  it('defaults type to webhook and records every log as an activity item', async () => {
    const log = await accountLog(t, { domain: 'typed.example', payload: { deep: { list: [1, 'a', null] } } });
    expect(log.type).toBe('webhook');
    const page = await activity(log.accountId);
    expect(page.totalCount).toBe(1);
    expect(page.items[0]).toMatchObject({
      accountId: log.accountId,
      accountLogId: log.accountLogId,
      source: 'crm',
      type: 'webhook',
      payload: { deep: { list: [1, 'a', null] } },
      createdAt: log.createdAt,
    });
    expect(page.items[0]).not.toHaveProperty('personId');
    expect(page.items[0]).not.toHaveProperty('idempotencyKey');
  });

  it('moves latestActivityAt to the newest log', async () => {
    const first = await accountLog(t, { domain: 'latest.example' });
    ahead += 1000;
    const second = await accountLog(t, { accountId: first.accountId });
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(1000);
    expect(await getAccount(first.accountId)).toMatchObject({ latestActivityAt: second.createdAt });
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: '/v0/account_logs',
      headers: t.auth(),
      payload: { source: 'crm', payload: {}, domain: 'auth.example' },
    }),
    { write: true, hasIds: false },
  );
});

describe('POST /v0/account_logs: idempotency', () => {
  const body = {
    source: 'crm',
    type: 'deal-won',
    payload: { amount: 10, currency: 'EUR' },
    domain: 'idem.example',
  };

  it('replays the first entry with 200 for the same key and body, whatever the key order', async () => {
    const first = await send(t, 'POST', '/v0/account_logs', { ...body, idempotencyKey: 'k-1' });
    expect(first.statusCode).toBe(201);
    const reordered = {
      idempotencyKey: 'k-1',
      payload: { currency: 'EUR', amount: 10 },
      domain: 'idem.example',
      type: 'deal-won',
      source: 'crm',
    };
    const replay = await send(t, 'POST', '/v0/account_logs', reordered);
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.json()).toEqual(first.json());
    const page = await activity(first.json().accountId);
    expect(page.totalCount).toBe(1);
    expect(page.items[0].idempotencyKey).toBe('k-1');
  });

  it('answers 409 when the key comes back with a different body, and changes nothing', async () => {
    const first = await accountLog(t, { ...body, idempotencyKey: 'k-2', name: 'Before' });
    for (const changed of [
      { ...body, payload: { amount: 11, currency: 'EUR' } },
      { ...body, type: 'deal-lost' },
      { ...body, name: 'After' },
      { ...body, domain: 'other.example' },
    ]) {
      const res = await send(t, 'POST', '/v0/account_logs', { ...changed, idempotencyKey: 'k-2' });
      const error = expectApiError(res, 'CONFLICT');
      expect(error.detail).toMatch(/idempotency key "k-2" was already used with a different request body/);
    }
    expect(await getAccount(first.accountId)).toMatchObject({ name: 'Before' });
    expect((await send(t, 'GET', '/v0/accounts')).json().totalCount).toBe(1);
  });

  it('treats an omitted type and type "webhook" as the same body', async () => {
    const { type: _type, ...untyped } = body;
    const first = await send(t, 'POST', '/v0/account_logs', { ...untyped, idempotencyKey: 'k-3' });
    const second = await send(t, 'POST', '/v0/account_logs', {
      ...untyped,
      type: 'webhook',
      idempotencyKey: 'k-3',
    });
    expect([first.statusCode, second.statusCode]).toEqual([201, 200]);
  });

  it('treats two spellings of one domain as the same body', async () => {
    const first = await send(t, 'POST', '/v0/account_logs', {
      ...body,
      domain: 'Example.COM',
      idempotencyKey: 'k-4',
    });
    const second = await send(t, 'POST', '/v0/account_logs', {
      ...body,
      domain: 'https://www.example.com/',
      idempotencyKey: 'k-4',
    });
    expect([first.statusCode, second.statusCode]).toEqual([201, 200]);
    expect(second.json().accountLogId).toBe(first.json().accountLogId);
    const other = await send(t, 'POST', '/v0/account_logs', {
      ...body,
      domain: 'example.org',
      idempotencyKey: 'k-4',
    });
    expectApiError(other, 'CONFLICT');
  });

  it('scopes keys to the tenant', async () => {
    const other = await t.seed.tenant();
    const mine = await accountLog(t, { ...body, idempotencyKey: 'shared' });
    const theirs = await send(t, 'POST', '/v0/account_logs', { ...body, idempotencyKey: 'shared' }, other);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().accountLogId).not.toBe(mine.accountLogId);
  });

  it('creates exactly one entry from 50 concurrent requests with one key', async () => {
    const requests = Array.from({ length: 50 }, () =>
      send(t, 'POST', '/v0/account_logs', { ...body, domain: 'race.example', idempotencyKey: 'race' }),
    );
    const responses = await Promise.all(requests);
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(new Set(responses.map((r) => r.json().accountLogId)).size).toBe(1);
    const accountId = responses[0]?.json().accountId as string;
    expect((await activity(accountId)).totalCount).toBe(1);
    expect((await activity(accountId)).items).toHaveLength(1);
    expect((await send(t, 'GET', '/v0/accounts')).json().totalCount).toBe(1);
  });

  it('lets one of 50 concurrent different bodies win a key; the rest get 409 and leave no account', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        send(t, 'POST', '/v0/account_logs', {
          ...body,
          domain: `race-${i}.example`,
          idempotencyKey: 'split',
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const accounts = (await send(t, 'GET', '/v0/accounts?limit=100')).json();
    expect(accounts.totalCount).toBe(1);
    expect(accounts.items).toHaveLength(1);
  });
});

describe('POST /v0/account_logs: bad input', () => {
  const valid = { source: 'crm', type: 'note', payload: {}, domain: 'valid.example' };
  const nonString = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string()),
    // No __proto__/constructor keys: the JSON parser refuses those bodies outright (tested elsewhere).
    fc.object().filter((o) => !/"(__proto__|constructor|prototype)"/.test(JSON.stringify(o))),
  );
  const kebab = /^[a-z0-9]+(-[a-z0-9]+)*$/;
  const badKebab = fc.oneof(
    fc.string({ maxLength: 120 }).filter((s) => !kebab.test(s)),
    fc.stringMatching(/^[a-z0-9]{101,140}$/),
    nonString,
  );
  const badText = (max: number) =>
    fc.oneof(fc.constant(''), fc.string({ minLength: max + 1, maxLength: max + 40 }), nonString);
  const cases: Array<[string, fc.Arbitrary<unknown>]> = [
    ['source', badKebab],
    ['type', badKebab],
    ['name', badText(255)],
    ['idempotencyKey', badText(255)],
  ];

  for (const [field, arbitrary] of cases) {
    it(`answers 400 naming ${field} for every invalid ${field}, never 500`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          const res = await send(t, 'POST', '/v0/account_logs', { ...valid, [field]: value });
          expect(res.statusCode, res.body).toBe(400);
          const details = res.json().details as Array<{ field: string; issues: Array<{ path: string[] }> }>;
          expect(details.map((d) => d.field)).toEqual(['body']);
          expect(details[0]?.issues.some((issue) => issue.path[0] === field)).toBe(true);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('answers 400 for payloads that are not objects, unknown members and malformed JSON', async () => {
    for (const payload of [null, [], 'text', 3]) {
      const res = await send(t, 'POST', '/v0/account_logs', { ...valid, payload });
      expect(res.json().details[0].issues[0].path).toEqual(['payload']);
    }
    expectApiError(await send(t, 'POST', '/v0/account_logs', { ...valid, extra: 1 }), 'VALIDATION_ERROR');
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/v0/account_logs',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      payload: '{"source":',
    });
    expectApiError(malformed, 'VALIDATION_ERROR');
  });

  it('answers 400, not 500, for text PostgreSQL cannot store', async () => {
    expectApiError(
      await send(t, 'POST', '/v0/account_logs', { ...valid, name: 'a\u0000b' }),
      'VALIDATION_ERROR',
    );
    expectApiError(
      await send(t, 'POST', '/v0/account_logs', { ...valid, payload: { text: 'a\u0000b' } }),
      'VALIDATION_ERROR',
    );
  });
});
