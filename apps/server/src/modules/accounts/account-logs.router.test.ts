import { AccountLogSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { accountLog, accountReads, send, useAccountLogsApp } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';

// The app's clock runs ahead of the real one by `ahead` ms: a test moves time without waiting.
let ahead = 0;
const t = useAccountLogsApp({ clock: () => new Date(Date.now() + ahead) });
const { getAccount, activity } = accountReads(t);

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
