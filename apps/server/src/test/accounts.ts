import type {
  AccountActivityItem,
  AccountLog,
  CreateAccountLogBody,
  CreatePersonBody,
  Person,
  PersonLog,
} from '@customer-api/contract';
import type { LightMyRequestResponse } from 'fastify';
import { TenantShare } from '../db/tenant-share.js';
import type { TestTenant } from './seed.js';
import { type TestApp, type TestAppOptions, useTestApp } from './test-app.js';

/**
 * The app of the account log tests: 50 concurrent requests of one tenant wait for its database
 * share as long as they need (on a loaded machine the default 1 s queue answers some of them 429,
 * which is not what these tests test).
 */
export function useAccountLogsApp(options: Pick<TestAppOptions, 'clock'> = {}): TestApp {
  return useTestApp({ ...options, tenantShare: new TenantShare({ concurrency: 4, queueMs: 60_000 }) });
}

/** A JSON request as the test's tenant (or `tenant`). */
export async function send(
  t: TestApp,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
  tenant: TestTenant = t.tenant,
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url,
    headers: tenant.auth(),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/**
 * Deletes an activity item the way a user does: `DELETE /v0/account_logs/{id}` or
 * `DELETE /v0/person_logs/{id}`, whichever log it shows. Returns the response.
 */
export async function deleteItem(
  t: TestApp,
  item: Pick<AccountActivityItem, 'accountLogId' | 'personLogId'>,
  tenant: TestTenant = t.tenant,
): Promise<LightMyRequestResponse> {
  const url = item.accountLogId
    ? `/v0/account_logs/${item.accountLogId}`
    : `/v0/person_logs/${item.personLogId as string}`;
  return send(t, 'DELETE', url, undefined, tenant);
}

async function created<T>(res: LightMyRequestResponse): Promise<T> {
  if (res.statusCode !== 201) throw new Error(`expected 201, got ${res.statusCode}: ${res.body}`);
  return res.json() as T;
}

/** Records an account log through the API and returns the created entry. */
export async function accountLog(
  t: TestApp,
  body: Partial<CreateAccountLogBody> = {},
  tenant?: TestTenant,
): Promise<AccountLog> {
  const payload = {
    source: 'crm',
    payload: { n: 1 },
    ...(body.accountId ? {} : { domain: 'example.com' }),
    ...body,
  };
  return created(await send(t, 'POST', '/v0/account_logs', payload, tenant));
}

/** Creates a person through the API. */
export async function person(
  t: TestApp,
  body: Partial<CreatePersonBody> = {},
  tenant?: TestTenant,
): Promise<Person> {
  const payload = {
    name: 'Jane Doe',
    email: `jane.${Math.random().toString(36).slice(2)}@example.com`,
    ...body,
  };
  return created(await send(t, 'POST', '/v0/persons', payload, tenant));
}

/** Records a person log through the API. */
export async function personLog(t: TestApp, personId: string, type = 'email-opened'): Promise<PersonLog> {
  return created(
    await send(t, 'POST', '/v0/person_logs', {
      personId,
      source: 'mailer',
      type,
      payload: { subject: 'Hi' },
    }),
  );
}

/** Every item of a paginated GET, following `nextCursor` with the given page size. */
export async function walk<T>(
  t: TestApp,
  url: string,
  limit: number,
  tenant: TestTenant = t.tenant,
): Promise<{ items: T[]; totals: number[] }> {
  const items: T[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const page: string = `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await t.app.inject({ url: page, headers: tenant.auth() });
    if (res.statusCode !== 200) throw new Error(`GET ${page}: ${res.statusCode} ${res.body}`);
    const body = res.json() as {
      items: T[];
      nextCursor: string | null;
      hasMore: boolean;
      totalCount: number;
    };
    if (body.hasMore !== (body.nextCursor !== null)) throw new Error('hasMore disagrees with nextCursor');
    items.push(...body.items);
    totals.push(body.totalCount);
    cursor = body.nextCursor;
  } while (cursor);
  return { items, totals };
}

/** An account as `GET /v0/accounts/{id}` answers it, and its activity, deleted and persons' included. */
export function accountReads(t: TestApp) {
  const getAccount = async (accountId: string) =>
    (await send(t, 'GET', `/v0/accounts/${accountId}`)).json() as Record<string, unknown>;
  const activity = async (accountId: string) =>
    (
      await send(
        t,
        'GET',
        `/v0/accounts/${accountId}/activity?includeDeleted=true&includePersonActivity=true`,
      )
    ).json();
  return { getAccount, activity };
}
