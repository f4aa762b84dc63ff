import { PersonLogSchema, PersonSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { TenantShare } from '../../db/tenant-share.js';
import { accountLog, person, send } from '../../test/accounts.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

// 20 concurrent requests of one tenant wait for its database share as long as they need: on a
// loaded machine the default 1 s queue answers some of them 429, which is not what these tests test.
const t = useTestApp({ tenantShare: new TenantShare({ concurrency: 4, queueMs: 60_000 }) });

describe('POST /v0/persons', () => {
  it('creates a person (201) linked to a new account of its email domain', async () => {
    const res = await send(t, 'POST', '/v0/persons', { name: 'José Álvarez', email: 'Jose@Mail.Acme.COM' });
    expect(res.statusCode, res.body).toBe(201);
    const created = PersonSchema.parse(res.json());
    expect(created).toMatchObject({
      name: 'José Álvarez',
      email: 'Jose@Mail.Acme.COM',
      domain: 'mail.acme.com',
    });
    expect(created.slug).toBe('jose-alvarez');
    expect(created.personId).toMatch(/^person_[0-9a-z]{26}$/);
    const account = (await send(t, 'GET', `/v0/accounts/${created.accountId}`)).json();
    expect(account).toMatchObject({ domain: 'mail.acme.com', name: null });
    expect(account.linkedPersons.map((p: { personId: string }) => p.personId)).toEqual([created.personId]);
  });

  it('links to the existing account of the domain, as account logs created it', async () => {
    const log = await accountLog(t, { domain: 'www.shared.example' });
    const a = await person(t, { email: 'a@shared.example' });
    const b = await person(t, { email: 'b@SHARED.example' });
    expect([a.accountId, b.accountId]).toEqual([log.accountId, log.accountId]);
    const list = (await send(t, 'GET', '/v0/accounts')).json();
    expect(list.items).toEqual([
      expect.objectContaining({ accountId: log.accountId, linkedPersonsCount: 2 }),
    ]);
  });

  it('keeps the given slug, phone number and LinkedIn address', async () => {
    const created = await person(t, {
      email: 'x@y.example',
      slug: 'custom-slug',
      phoneNumber: '+1 555',
      linkedinProfileUrl: 'https://linkedin.com/in/x',
    });
    expect(created).toMatchObject({ slug: 'custom-slug', phoneNumber: '+1 555' });
  });

  it('answers 409 for an email the tenant already has, in any letter case, and changes nothing', async () => {
    const first = await person(t, { email: 'dup@dup.example' });
    const res = await send(t, 'POST', '/v0/persons', { name: 'Again', email: 'DUP@dup.example' });
    expect(expectApiError(res, 'CONFLICT').detail).toMatch(/already exists/);
    const account = (await send(t, 'GET', `/v0/accounts/${first.accountId}`)).json();
    expect(account.linkedPersons).toHaveLength(1);
    const other = await t.seed.tenant();
    expect(
      (await send(t, 'POST', '/v0/persons', { name: 'X', email: 'dup@dup.example' }, other)).statusCode,
    ).toBe(201);
  });

  it('links 20 concurrent persons of a new domain to one account, with exact counts', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(t, 'POST', '/v0/persons', { name: `P${i}`, email: `p${i}@crowd.example` }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.json().accountId)).size).toBe(1);
    const accounts = (await send(t, 'GET', '/v0/accounts')).json();
    expect(accounts).toMatchObject({ totalCount: 1, items: [{ linkedPersonsCount: 20 }] });
    expect((await send(t, 'GET', '/v0/accounts?includeEmptyOnly=true')).json().totalCount).toBe(0);
  });

  it('creates one of 20 concurrent persons with the same email; the others get 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(t, 'POST', '/v0/persons', {
          name: `P${i}`,
          email: i % 2 ? 'same@race.example' : 'SAME@race.example',
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect((await send(t, 'GET', '/v0/accounts')).json()).toMatchObject({
      totalCount: 1,
      items: [{ linkedPersonsCount: 1 }],
    });
  });

  it('answers 400 naming the field for bad input', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: 'a@b.example' }, 'name'],
      [{ name: 'N' }, 'email'],
      [{ name: '', email: 'a@b.example' }, 'name'],
      [{ name: 'N', email: 'not-an-email' }, 'email'],
      [{ name: 'N', email: 'a@b.example', slug: 'Not Kebab' }, 'slug'],
      [{ name: 'N', email: 'a@b.example', linkedinProfileUrl: 'nope' }, 'linkedinProfileUrl'],
      [{ name: 'N', email: 'a@b.example', extra: true }, ''],
    ];
    for (const [body, field] of cases) {
      const error = expectApiError(await send(t, 'POST', '/v0/persons', body), 'VALIDATION_ERROR');
      const details = error.details as Array<{ field: string; issues: Array<{ path: string[] }> }>;
      expect(details[0]?.field).toBe('body');
      if (field) expect(details[0]?.issues.map((i) => i.path[0])).toContain(field);
    }
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: '/v0/persons',
      headers: t.auth(),
      payload: { name: 'Auth', email: `auth-${Date.now()}@auth.example` },
    }),
    { write: true, hasIds: false },
  );
});

describe('POST /v0/person_logs', () => {
  it('records a log (201) that shows in the account activity with the person', async () => {
    const jane = await person(t, { name: 'Jane', email: 'jane@logs.example' });
    const res = await send(t, 'POST', '/v0/person_logs', {
      personId: jane.personId,
      source: 'mailer',
      type: 'email-opened',
      payload: { campaign: 'spring' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const log = PersonLogSchema.parse(res.json());
    expect(log).toMatchObject({ personId: jane.personId, accountId: jane.accountId, type: 'email-opened' });
    expect(log.personLogId).toMatch(/^personlog_[0-9a-z]{26}$/);
    const activity = (
      await send(t, 'GET', `/v0/accounts/${jane.accountId}/activity?includePersonActivity=true`)
    ).json();
    expect(activity.items).toEqual([
      expect.objectContaining({ personLogId: log.personLogId, personId: jane.personId, personName: 'Jane' }),
    ]);
    // Person logs are not the account's own activity: the default view and latestActivityAt ignore them.
    expect((await send(t, 'GET', `/v0/accounts/${jane.accountId}/activity`)).json().totalCount).toBe(0);
    expect((await send(t, 'GET', `/v0/accounts/${jane.accountId}`)).json().latestActivityAt).toBeNull();
  });

  it("answers 404 for an unknown person and another tenant's person", async () => {
    const body = { source: 'mailer', type: 'x', payload: {} };
    expectApiError(
      await send(t, 'POST', '/v0/person_logs', { ...body, personId: 'person_nope' }),
      'NOT_FOUND',
    );
    const other = await t.seed.tenant();
    const theirs = await person(t, { email: 'their@their.example' }, other);
    expectApiError(
      await send(t, 'POST', '/v0/person_logs', { ...body, personId: theirs.personId }),
      'NOT_FOUND',
    );
  });

  it('answers 400 for a bad source, type or payload', async () => {
    const jane = await person(t);
    for (const bad of [{ source: 'Bad Source' }, { type: '' }, { payload: [] }, { personId: '' }]) {
      const body = { personId: jane.personId, source: 's', type: 't', payload: {}, ...bad };
      const error = expectApiError(await send(t, 'POST', '/v0/person_logs', body), 'VALIDATION_ERROR');
      expect((error.details as Array<{ issues: Array<{ path: string[] }> }>)[0]?.issues[0]?.path).toEqual(
        Object.keys(bad),
      );
    }
  });

  itEnforcesAuth(
    t,
    async () => {
      const p = await person(t);
      return {
        method: 'POST',
        url: '/v0/person_logs',
        headers: t.auth(),
        payload: { personId: p.personId, source: 's', type: 't', payload: {} },
      };
    },
    { write: true, hasIds: true },
  );
});
