import { AccountActivityItemSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { accountLog, person, personLog, send } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const activity = async (accountId: string, query = '') =>
  (await send(t, 'GET', `/v0/accounts/${accountId}/activity${query}`)).json() as {
    items: Array<{ activityId: string; deletedAt?: string }>;
    totalCount: number;
  };

describe('DELETE /v0/account_logs/{account_log_id}', () => {
  itEnforcesAuth(
    t,
    async (t) => ({
      method: 'DELETE',
      url: `/v0/account_logs/${(await accountLog(t, { domain: 'auth.example' })).accountLogId}`,
      headers: t.auth(),
    }),
    { write: true, hasIds: true },
  );

  it('soft-deletes the log: 200 with deletedAt, listed only with includeDeleted, counts exact; again: the same item', async () => {
    const kept = await accountLog(t, { domain: 'del.example', type: 'kept' });
    const gone = await accountLog(t, { domain: 'del.example', type: 'gone' });
    const res = await send(t, 'DELETE', `/v0/account_logs/${gone.accountLogId}`);
    expect(res.statusCode, res.body).toBe(200);
    const item = AccountActivityItemSchema.parse(res.json());
    expect(item).toMatchObject({
      accountLogId: gone.accountLogId,
      type: 'gone',
      deletedAt: expect.any(String),
    });
    const visible = await activity(kept.accountId);
    expect([visible.items.length, visible.totalCount]).toEqual([1, 1]);
    const all = await activity(kept.accountId, '?includeDeleted=true');
    expect([all.items.length, all.totalCount]).toEqual([2, 2]);
    expect(all.items.find((i) => i.activityId === item.activityId)?.deletedAt).toBe(item.deletedAt);
    const again = await send(t, 'DELETE', `/v0/account_logs/${gone.accountLogId}`);
    expect([again.statusCode, again.json()]).toEqual([200, item]);
    expect((await activity(kept.accountId)).totalCount).toBe(1);
  });

  it("answers 404 for an unknown id, a person log's id and another tenant's log, and deletes nothing", async () => {
    const mine = await person(t, { name: 'Ann', email: 'ann@mine.example' });
    const personEntry = await personLog(t, mine.personId);
    expectApiError(await send(t, 'DELETE', '/v0/account_logs/alog_missing'), 'NOT_FOUND');
    expectApiError(await send(t, 'DELETE', `/v0/account_logs/${personEntry.personLogId}`), 'NOT_FOUND');
    const other = await t.seed.tenant();
    const theirs = await accountLog(t, { domain: 'theirs.example' }, other);
    expectApiError(await send(t, 'DELETE', `/v0/account_logs/${theirs.accountLogId}`), 'NOT_FOUND');
    const list = (await send(t, 'GET', `/v0/accounts/${theirs.accountId}/activity`, undefined, other)).json();
    expect(list.totalCount).toBe(1);
  });
});

describe('DELETE /v0/person_logs/{person_log_id}', () => {
  it("soft-deletes a person log with its person's name; the account's activity counts stay exact", async () => {
    const jane = await person(t, { name: 'Jane', email: 'jane@plog.example' });
    const entry = await personLog(t, jane.personId, 'clicked');
    await personLog(t, jane.personId, 'kept');
    const res = await send(t, 'DELETE', `/v0/person_logs/${entry.personLogId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      personLogId: entry.personLogId,
      personId: jane.personId,
      personName: 'Jane',
      deletedAt: expect.any(String),
    });
    const visible = await activity(jane.accountId, '?includePersonActivity=true');
    expect(visible.totalCount).toBe(1);
    const all = await activity(jane.accountId, '?includePersonActivity=true&includeDeleted=true');
    expect(all.totalCount).toBe(2);
    expect((await send(t, 'DELETE', `/v0/person_logs/${entry.personLogId}`)).json()).toEqual(res.json());
    expectApiError(await send(t, 'DELETE', '/v0/person_logs/plog_missing'), 'NOT_FOUND');
  });
});
