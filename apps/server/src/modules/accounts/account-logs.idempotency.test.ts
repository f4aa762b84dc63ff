import { describe, expect, it } from 'vitest';
import { accountLog, accountReads, send, useAccountLogsApp } from '../../test/accounts.js';
import { expectApiError } from '../../test/http-cases.js';

const t = useAccountLogsApp();
const { getAccount, activity } = accountReads(t);

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
