import type { AccountActivityItem, AccountListItem } from '@customer-api/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deleteItem, send, walk } from '../../test/accounts.js';
import type { TestTenant } from '../../test/seed.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const DOMAINS = ['a.example', 'b.example', 'c.example'];

type Op =
  | { op: 'log'; domain: number; key: number | null; type: 'x' | 'y' }
  | { op: 'person'; domain: number; local: number }
  | { op: 'personLog'; pick: number }
  | { op: 'delete'; pick: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('log' as const),
    domain: fc.nat(2),
    key: fc.option(fc.nat(2), { nil: null }),
    type: fc.constantFrom('x' as const, 'y' as const),
  }),
  fc.record({ op: fc.constant('person' as const), domain: fc.nat(2), local: fc.nat(3) }),
  fc.record({ op: fc.constant('personLog' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
);

const VIEWS = [
  '',
  '?includeDeleted=true',
  '?includePersonActivity=true',
  '?includePersonActivity=true&includeDeleted=true',
];

async function apply(tenant: TestTenant, op: Op, state: { persons: string[]; accounts: Set<string> }) {
  if (op.op === 'log') {
    const body = { source: 'prop', type: op.type, payload: {}, domain: DOMAINS[op.domain] };
    const res = await send(
      t,
      'POST',
      '/v0/account_logs',
      { ...body, ...(op.key === null ? {} : { idempotencyKey: `k${op.key}` }) },
      tenant,
    );
    expect([200, 201, 409]).toContain(res.statusCode);
    if (res.statusCode !== 409) state.accounts.add(res.json().accountId);
  } else if (op.op === 'person') {
    const email = `p${op.local}@${DOMAINS[op.domain]}`;
    const res = await send(t, 'POST', '/v0/persons', { name: `P ${op.local}`, email }, tenant);
    expect([201, 409]).toContain(res.statusCode);
    if (res.statusCode === 201) {
      state.persons.push(res.json().personId);
      state.accounts.add(res.json().accountId);
    }
  } else if (op.op === 'personLog' && state.persons.length > 0) {
    const personId = state.persons[op.pick % state.persons.length];
    const res = await send(
      t,
      'POST',
      '/v0/person_logs',
      { personId, source: 'prop', type: 'z', payload: {} },
      tenant,
    );
    expect(res.statusCode).toBe(201);
  } else if (op.op === 'delete' && state.accounts.size > 0) {
    const accountId = [...state.accounts][op.pick % state.accounts.size] as string;
    const all = (
      await walk<AccountActivityItem>(t, `/v0/accounts/${accountId}/activity${VIEWS[3]}`, 100, tenant)
    ).items;
    const live = all.filter((i) => !i.deletedAt);
    const item = live[op.pick % Math.max(live.length, 1)];
    if (item) expect((await deleteItem(t, item, tenant)).statusCode).toBe(200);
  }
}

/** Every totalCount must equal the number of items a full walk returns, in every view. */
async function expectCountsMatchWalks(tenant: TestTenant): Promise<void> {
  const accounts = await walk<AccountListItem>(t, '/v0/accounts', 2, tenant);
  expect(accounts.totals.every((n) => n === accounts.items.length)).toBe(true);
  const empty = await walk<AccountListItem>(t, '/v0/accounts?includeEmptyOnly=true', 2, tenant);
  expect(empty.totals.every((n) => n === empty.items.length)).toBe(true);
  expect(empty.items.map((a) => a.accountId)).toEqual(
    accounts.items.filter((a) => a.linkedPersonsCount === 0).map((a) => a.accountId),
  );
  for (const account of accounts.items) {
    const read = (await send(t, 'GET', `/v0/accounts/${account.accountId}`, undefined, tenant)).json();
    expect(read.linkedPersons).toHaveLength(account.linkedPersonsCount);
    for (const view of VIEWS) {
      const page = await walk<AccountActivityItem>(
        t,
        `/v0/accounts/${account.accountId}/activity${view}`,
        3,
        tenant,
      );
      expect(
        page.totals.every((n) => n === page.items.length),
        `${account.domain}${view}`,
      ).toBe(true);
    }
  }
}

describe('maintained counters', () => {
  it('equal a recount after any sequence of logs, persons, person logs and deletions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 14 }), async (ops) => {
        const tenant = await t.seed.tenant();
        const state = { persons: [] as string[], accounts: new Set<string>() };
        for (const op of ops) await apply(tenant, op, state);
        await expectCountsMatchWalks(tenant);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
