import { type AccountActivityItem, AccountActivityItemSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { accountLog, deleteItem, person, personLog, send, walk } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const url = (accountId: string, query = '') => `/v0/accounts/${accountId}/activity${query}`;
/** Deletes the item through the API; expects the deletion acknowledged. */
const remove = async (item: AccountActivityItem | undefined) => {
  if (!item) throw new Error('no such item');
  const res = await deleteItem(t, item);
  expect(res.statusCode, res.body).toBe(200);
  return res;
};

/** An account with 3 account logs and, from 2 persons, 3 person logs; interleaved in time. */
async function busyAccount() {
  const jane = await person(t, { name: 'Jane', email: 'jane@busy.example' });
  const max = await person(t, { name: 'Max', email: 'max@busy.example' });
  const a1 = await accountLog(t, { domain: 'busy.example', type: 'first' });
  const p1 = await personLog(t, jane.personId, 'opened');
  const a2 = await accountLog(t, { accountId: jane.accountId, type: 'second', idempotencyKey: 'key-2' });
  const p2 = await personLog(t, max.personId, 'clicked');
  const p3 = await personLog(t, jane.personId, 'replied');
  const a3 = await accountLog(t, { accountId: jane.accountId, type: 'third' });
  return { accountId: jane.accountId, jane, max, accountLogs: [a1, a2, a3], personLogs: [p1, p2, p3] };
}

const items = async (accountId: string, query = '') => {
  const res = await send(t, 'GET', url(accountId, query));
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  return { ...body, items: body.items.map((i: unknown) => AccountActivityItemSchema.parse(i)) } as {
    items: AccountActivityItem[];
    totalCount: number;
  };
};

describe('GET /v0/accounts/{account_id}/activity', () => {
  it('lists the account logs newest first by default', async () => {
    const { accountId, accountLogs } = await busyAccount();
    const page = await items(accountId);
    expect(page.items.map((i) => i.accountLogId)).toEqual(accountLogs.map((l) => l.accountLogId).reverse());
    expect(page.totalCount).toBe(3);
    expect(page.items[1]).toMatchObject({ type: 'second', idempotencyKey: 'key-2' });
    expect(page.items[1]?.activityId).toMatch(/^activity_[0-9a-z]{26}$/);
  });

  it('adds person logs with personId, personLogId and personName when includePersonActivity=true', async () => {
    const { accountId, jane, max, personLogs } = await busyAccount();
    const page = await items(accountId, '?includePersonActivity=true');
    expect(page.totalCount).toBe(6);
    expect(page.items.map((i) => i.type)).toEqual([
      'third',
      'replied',
      'clicked',
      'second',
      'opened',
      'first',
    ]);
    const clicked = page.items[2];
    expect(clicked).toMatchObject({
      accountId,
      personId: max.personId,
      personLogId: personLogs[1]?.personLogId,
      personName: 'Max',
      source: 'mailer',
      payload: { subject: 'Hi' },
    });
    expect(clicked).not.toHaveProperty('accountLogId');
    expect(page.items[1]).toMatchObject({ personId: jane.personId, personName: 'Jane' });
    expect(page.items[0]).not.toHaveProperty('personId');
  });

  it('shows deleted items only with includeDeleted=true, with exact counts in all four views', async () => {
    const { accountId } = await busyAccount();
    const everything = await items(accountId, '?includePersonActivity=true');
    const deletedAccountLog = everything.items.find((i) => i.type === 'second');
    const deletedPersonLog = everything.items.find((i) => i.type === 'clicked');
    await remove(deletedAccountLog);
    await remove(deletedPersonLog);
    const views: Array<[string, string[]]> = [
      ['', ['third', 'first']],
      ['?includeDeleted=true', ['third', 'second', 'first']],
      ['?includePersonActivity=true', ['third', 'replied', 'opened', 'first']],
      [
        '?includePersonActivity=true&includeDeleted=true',
        ['third', 'replied', 'clicked', 'second', 'opened', 'first'],
      ],
    ];
    for (const [query, types] of views) {
      const page = await items(accountId, query);
      expect(
        page.items.map((i) => i.type),
        query,
      ).toEqual(types);
      expect(page.totalCount, query).toBe(types.length);
    }
    const withDeleted = await items(accountId, '?includeDeleted=true');
    expect(withDeleted.items[1]?.deletedAt).toEqual(expect.any(String));
    expect(withDeleted.items[0]).not.toHaveProperty('deletedAt');
    // Deleting again changes nothing: the same entry, and the same counts.
    const again = await remove(deletedAccountLog);
    expect(again.json()).toMatchObject({
      accountLogId: deletedAccountLog?.accountLogId,
      deletedAt: expect.any(String),
    });
    expect((await items(accountId, '?includeDeleted=true')).totalCount).toBe(3);
  });

  it('walks every view page by page without duplicates or gaps', async () => {
    const { accountId } = await busyAccount();
    for (const query of [
      '',
      '?includePersonActivity=true',
      '?includePersonActivity=true&includeDeleted=false',
    ]) {
      const full = await items(accountId, query);
      const walked = await walk<AccountActivityItem>(t, url(accountId, query), 2);
      expect(walked.items.map((i) => i.activityId)).toEqual(full.items.map((i) => i.activityId));
      expect(new Set(walked.totals)).toEqual(new Set([full.totalCount]));
    }
  });

  it('rejects cursors from another account or another view', async () => {
    const { accountId } = await busyAccount();
    const other = await accountLog(t, { domain: 'other.example' });
    await accountLog(t, { accountId: other.accountId });
    const cursor = encodeURIComponent((await send(t, 'GET', url(accountId, '?limit=1'))).json().nextCursor);
    for (const bad of [
      url(other.accountId, `?cursor=${cursor}`),
      url(accountId, `?includePersonActivity=true&cursor=${cursor}`),
      url(accountId, `?includeDeleted=true&cursor=${cursor}`),
    ]) {
      expectApiError(await send(t, 'GET', bad), 'VALIDATION_ERROR');
    }
    expect((await send(t, 'GET', url(accountId, `?cursor=${cursor}`))).statusCode).toBe(200);
  });

  it('answers 400 for flags other than true/false and 404 for unknown accounts', async () => {
    const log = await accountLog(t);
    for (const query of ['?includeDeleted=1', '?includePersonActivity=yes', '?limit=0', '?unknown=true']) {
      expectApiError(await send(t, 'GET', url(log.accountId, query)), 'VALIDATION_ERROR');
    }
    expectApiError(await send(t, 'GET', url(`account_${'2'.repeat(26)}`)), 'NOT_FOUND');
  });

  it('answers an empty page for an account with no activity', async () => {
    const jane = await person(t, { email: 'quiet@quiet.example' });
    expect((await send(t, 'GET', url(jane.accountId))).json()).toEqual({
      items: [],
      hasMore: false,
      nextCursor: null,
      totalCount: 0,
    });
  });

  itEnforcesAuth(
    t,
    async () => {
      const log = await accountLog(t);
      return { method: 'GET', url: url(log.accountId, '?includePersonActivity=true'), headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});
