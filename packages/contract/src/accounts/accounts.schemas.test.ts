import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountIdSchema } from '../common/ids.js';
import {
  AccountActivityItemSchema,
  AccountListItemSchema,
  AccountLogSchema,
  AccountSchema,
  CreateAccountLogBodySchema,
  ListAccountActivityQuerySchema,
  ListAccountsQuerySchema,
} from './accounts.schemas.js';

const id26 = fc.stringMatching(/^[a-z0-9]{26}$/);
const accountId = id26.map((s) => `account_${s}`);
const valid = { source: 'crm-sync', payload: { plan: 'pro' }, domain: 'example.com' };
const issuesAt = (value: unknown) => {
  const result = CreateAccountLogBodySchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
};

describe('account ids', () => {
  it('accept account_ followed by 26 lower-case letters or digits', () => {
    fc.assert(fc.property(accountId, (id) => AccountIdSchema.safeParse(id).success));
  });

  it('reject other prefixes, lengths and characters', () => {
    fc.assert(fc.property(id26, (s) => !AccountIdSchema.safeParse(`acct_${s}`).success));
    fc.assert(fc.property(id26, (s) => !AccountIdSchema.safeParse(`account_${s.slice(1)}`).success));
    fc.assert(fc.property(id26, (s) => !AccountIdSchema.safeParse(`account_${s}0`).success));
    fc.assert(fc.property(id26, (s) => !AccountIdSchema.safeParse(`account_A${s.slice(1)}`).success));
    fc.assert(fc.property(id26, (s) => !AccountIdSchema.safeParse(`account_${s.slice(1)}-`).success));
    expect(AccountIdSchema.safeParse('').success).toBe(false);
  });
});

describe('account log request', () => {
  it('accepts the minimal body and defaults type to webhook', () => {
    expect(CreateAccountLogBodySchema.parse(valid)).toEqual({ ...valid, type: 'webhook' });
  });

  it('keeps an explicit type', () => {
    expect(CreateAccountLogBodySchema.parse({ ...valid, type: 'contact-update' }).type).toBe(
      'contact-update',
    );
  });

  it('requires source and payload, and payload must be an object', () => {
    expect(issuesAt({ payload: {}, domain: 'a.com' })).toContain('source');
    expect(issuesAt({ source: 'x', domain: 'a.com' })).toContain('payload');
    for (const payload of [[], 'text', 1, null]) expect(issuesAt({ ...valid, payload })).toContain('payload');
  });

  it('applies the kebab-case pattern and 1..100 length to source and type', () => {
    for (const field of ['source', 'type']) {
      for (const bad of ['', 'Upper', 'a_b', 'a--b', '-a', 'a'.repeat(101), 42]) {
        expect(issuesAt({ ...valid, [field]: bad }), `${field}=${String(bad)}`).toContain(field);
      }
      expect(issuesAt({ ...valid, [field]: 'a'.repeat(100) })).toEqual([]);
    }
  });

  it('checks accountId against ^account_[a-z0-9]{26}$', () => {
    fc.assert(fc.property(accountId, (id) => issuesAt({ ...valid, accountId: id }).length === 0));
    for (const bad of ['', 'account_', 'account_123', 'org_01jd4x3k5n8q2r6t9v0w1y2z3a']) {
      expect(issuesAt({ ...valid, accountId: bad }), bad).toContain('accountId');
    }
  });

  it('bounds name to 1..255 and idempotencyKey to 1..255', () => {
    for (const field of ['name', 'idempotencyKey']) {
      expect(issuesAt({ ...valid, [field]: 'x' })).toEqual([]);
      expect(issuesAt({ ...valid, [field]: 'x'.repeat(255) })).toEqual([]);
      expect(issuesAt({ ...valid, [field]: '' })).toContain(field);
      expect(issuesAt({ ...valid, [field]: 'x'.repeat(256) })).toContain(field);
    }
  });

  it('requires a non-empty domain when given, and accountId or domain', () => {
    expect(issuesAt({ ...valid, domain: '' })).toContain('domain');
    expect(issuesAt({ source: 'a', payload: {} })).toContain('domain');
    expect(issuesAt({ source: 'a', payload: {}, accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a' })).toEqual(
      [],
    );
  });

  it('rejects unknown fields', () => {
    expect(CreateAccountLogBodySchema.safeParse({ ...valid, extra: 1 }).success).toBe(false);
  });
});

describe('account log entry', () => {
  const entry = {
    accountLogId: 'accountlog_1',
    accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
    source: 'crm',
    type: 'webhook',
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  it('requires every field with its rule', () => {
    expect(AccountLogSchema.safeParse(entry).success).toBe(true);
    expect(AccountLogSchema.safeParse({ ...entry, accountLogId: '' }).success).toBe(false);
    expect(AccountLogSchema.safeParse({ ...entry, accountId: 'account_x' }).success).toBe(false);
    expect(AccountLogSchema.safeParse({ ...entry, source: 'Bad' }).success).toBe(false);
    expect(AccountLogSchema.safeParse({ ...entry, type: 'x'.repeat(101) }).success).toBe(false);
    const { createdAt: _c, ...noDate } = entry;
    expect(AccountLogSchema.safeParse(noDate).success).toBe(false);
  });
});

describe('accounts', () => {
  const base = {
    accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
    domain: 'example.com',
    name: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    latestActivityAt: null,
  };

  it('list items carry linkedPersonsCount in 0..2^53-1, single reads linkedPersons', () => {
    expect(AccountListItemSchema.safeParse({ ...base, linkedPersonsCount: 0 }).success).toBe(true);
    expect(AccountListItemSchema.safeParse({ ...base, linkedPersonsCount: -1 }).success).toBe(false);
    expect(AccountListItemSchema.safeParse(base).success).toBe(false);
    expect(AccountSchema.safeParse({ ...base, linkedPersons: [] }).success).toBe(true);
    expect(AccountSchema.safeParse(base).success).toBe(false);
  });

  it('name is null or 1..255 characters, domain non-empty, latestActivityAt nullable but present', () => {
    const item = { ...base, linkedPersonsCount: 1 };
    expect(AccountListItemSchema.safeParse({ ...item, name: 'Acme' }).success).toBe(true);
    expect(AccountListItemSchema.safeParse({ ...item, name: '' }).success).toBe(false);
    expect(AccountListItemSchema.safeParse({ ...item, name: 'x'.repeat(256) }).success).toBe(false);
    expect(AccountListItemSchema.safeParse({ ...item, domain: '' }).success).toBe(false);
    const { latestActivityAt: _l, ...missing } = item;
    expect(AccountListItemSchema.safeParse(missing).success).toBe(false);
  });

  it('activity items need a payload object and timestamps', () => {
    const activity = {
      activityId: 'activity_1',
      accountId: base.accountId,
      accountLogId: 'accountlog_1',
      source: 'crm',
      type: 'webhook',
      payload: {},
      createdAt: base.createdAt,
      updatedAt: base.updatedAt,
    };
    expect(AccountActivityItemSchema.safeParse(activity).success).toBe(true);
    expect(AccountActivityItemSchema.safeParse({ ...activity, payload: 'x' }).success).toBe(false);
  });

  it('list queries accept the flags as true/false only', () => {
    expect(ListAccountsQuerySchema.parse({ includeEmptyOnly: 'true' }).includeEmptyOnly).toBe(true);
    expect(ListAccountsQuerySchema.safeParse({ includeEmptyOnly: 'yes' }).success).toBe(false);
    const parsed = ListAccountActivityQuerySchema.parse({
      includePersonActivity: 'false',
      includeDeleted: 'true',
    });
    expect(parsed).toMatchObject({ includePersonActivity: false, includeDeleted: true, limit: 20 });
    expect(ListAccountActivityQuerySchema.safeParse({ includeDeleted: '1' }).success).toBe(false);
  });
});
