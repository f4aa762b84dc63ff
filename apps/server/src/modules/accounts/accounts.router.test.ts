import { AccountListItemSchema, AccountSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { accountLog, person, send, walk } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

type Item = { accountId: string; domain: string; linkedPersonsCount: number };

describe('GET /v0/accounts', () => {
  it('lists accounts newest first with linkedPersonsCount', async () => {
    const a = await accountLog(t, { domain: 'a.example', name: 'A' });
    await person(t, { email: 'one@b.example' });
    await person(t, { email: 'two@b.example' });
    const res = await send(t, 'GET', '/v0/accounts');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ totalCount: 2, hasMore: false, nextCursor: null });
    const items = body.items.map((i: unknown) => AccountListItemSchema.parse(i));
    expect(items.map((i: Item) => [i.domain, i.linkedPersonsCount])).toEqual([
      ['b.example', 2],
      ['a.example', 0],
    ]);
    expect(items[1]).toMatchObject({ accountId: a.accountId, name: 'A', latestActivityAt: a.createdAt });
    expect(items[0]).toMatchObject({ name: null, latestActivityAt: null });
    expect(items[0]).not.toHaveProperty('linkedPersons');
  });

  it('includeEmptyOnly=true keeps accounts without persons, with its own exact totalCount', async () => {
    await accountLog(t, { domain: 'empty-1.example' });
    await person(t, { email: 'x@full.example' });
    const empty2 = await accountLog(t, { domain: 'empty-2.example' });
    const emptyOnly = (await send(t, 'GET', '/v0/accounts?includeEmptyOnly=true')).json();
    expect(emptyOnly.items.map((i: Item) => i.domain)).toEqual(['empty-2.example', 'empty-1.example']);
    expect(emptyOnly.totalCount).toBe(2);
    // A person joining an empty account moves it out of the empty ones.
    await person(t, { email: 'y@empty-2.example' });
    const after = (await send(t, 'GET', '/v0/accounts?includeEmptyOnly=true')).json();
    expect(after.items.map((i: Item) => i.domain)).toEqual(['empty-1.example']);
    expect(after.totalCount).toBe(1);
    expect((await send(t, 'GET', '/v0/accounts?includeEmptyOnly=false')).json().totalCount).toBe(3);
    expect((await send(t, 'GET', `/v0/accounts/${empty2.accountId}`)).json().linkedPersons).toHaveLength(1);
  });

  it('walks every account without duplicates or gaps, in both views', async () => {
    const domains: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      domains.push(`walk-${i}.example`);
      if (i % 3 === 0) await person(t, { email: `p${i}@walk-${i}.example` });
      else await accountLog(t, { domain: `walk-${i}.example` });
    }
    const all = await walk<Item>(t, '/v0/accounts', 3);
    expect(all.items.map((i) => i.domain)).toEqual([...domains].reverse());
    expect(new Set(all.totals)).toEqual(new Set([7]));
    const empty = await walk<Item>(t, '/v0/accounts?includeEmptyOnly=true', 2);
    expect(empty.items.map((i) => i.domain)).toEqual(domains.filter((_, i) => i % 3 !== 0).reverse());
    expect(new Set(empty.totals)).toEqual(new Set([4]));
  });

  it('rejects a cursor taken from the other view, and flags other than true/false', async () => {
    for (let i = 0; i < 3; i += 1) await accountLog(t, { domain: `c-${i}.example` });
    const page = (await send(t, 'GET', '/v0/accounts?limit=1')).json();
    const cursor = encodeURIComponent(page.nextCursor);
    expectApiError(
      await send(t, 'GET', `/v0/accounts?includeEmptyOnly=true&cursor=${cursor}`),
      'VALIDATION_ERROR',
    );
    for (const flag of ['1', 'yes', 'TRUE', '']) {
      const res = await send(t, 'GET', `/v0/accounts?includeEmptyOnly=${flag}`);
      const error = expectApiError(res, 'VALIDATION_ERROR');
      expect(error.details).toEqual([expect.objectContaining({ field: 'query' })]);
    }
  });

  it("never lists another tenant's accounts", async () => {
    const other = await t.seed.tenant();
    await accountLog(t, { domain: 'theirs.example' }, other);
    expect((await send(t, 'GET', '/v0/accounts')).json()).toEqual({
      items: [],
      hasMore: false,
      nextCursor: null,
      totalCount: 0,
    }); // Nor reads one by its id: the same answer as for an id that does not exist.
    const theirs = await accountLog(t, { domain: 'theirs.example' }, other);
    expectApiError(await send(t, 'GET', `/v0/accounts/${theirs.accountId}`), 'NOT_FOUND');
  });

  itEnforcesAuth(t, async () => ({ method: 'GET', url: '/v0/accounts', headers: t.auth() }), {
    write: false,
    hasIds: false,
  });
});

describe('GET /v0/accounts/{account_id}', () => {
  it('reads the account with its linked persons, oldest first', async () => {
    const jane = await person(t, {
      name: 'Jane Roe',
      email: 'jane@linked.example',
      phoneNumber: '+49 30 1234',
      linkedinProfileUrl: 'https://www.linkedin.com/in/jane',
    });
    const max = await person(t, { name: 'Max', email: 'max@LINKED.example' });
    const res = await send(t, 'GET', `/v0/accounts/${jane.accountId}`);
    expect(res.statusCode).toBe(200);
    const account = AccountSchema.parse(res.json());
    expect(account).toMatchObject({
      accountId: jane.accountId,
      domain: 'linked.example',
      latestActivityAt: null,
    });
    expect(account.linkedPersons).toEqual([
      {
        personId: jane.personId,
        name: 'Jane Roe',
        email: 'jane@linked.example',
        domain: 'linked.example',
        slug: 'jane-roe',
        phoneNumber: '+49 30 1234',
        linkedinProfileUrl: 'https://www.linkedin.com/in/jane',
        createdAt: jane.createdAt,
        updatedAt: jane.updatedAt,
      },
      expect.objectContaining({ personId: max.personId, email: 'max@LINKED.example', slug: 'max' }),
    ]);
    expect(account.linkedPersons[1]).not.toHaveProperty('phoneNumber');
    expect(res.json()).not.toHaveProperty('linkedPersonsCount');
  });

  it('answers 404 for an unknown account', async () => {
    expectApiError(await send(t, 'GET', `/v0/accounts/account_${'1'.repeat(26)}`), 'NOT_FOUND');
    expectApiError(await send(t, 'GET', '/v0/accounts/not-an-id'), 'NOT_FOUND');
  });

  itEnforcesAuth(
    t,
    async () => {
      const log = await accountLog(t);
      return { method: 'GET', url: `/v0/accounts/${log.accountId}`, headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});
