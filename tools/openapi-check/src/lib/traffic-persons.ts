import { type Driver, str } from './traffic-call.js';

/**
 * A person and its log (deleted), then an account log (sent twice: 201, then 200), its account
 * with its activity, and the account log deleted.
 */
export async function drivePersons({ rec, key, call }: Driver): Promise<void> {
  const person = await call({
    operation: 'createPerson',
    method: 'POST',
    path: '/v0/persons',
    expect: 201,
    body: { name: 'Jane Doe', email: `jane.${Date.now()}@example.com` },
  });
  const personLog = await call({
    operation: 'createPersonLog',
    method: 'POST',
    path: '/v0/person_logs',
    expect: 201,
    body: {
      personId: str(person, 'personId'),
      source: 'crm',
      type: 'call-logged',
      payload: { minutes: 12 },
    },
  });
  await call({
    operation: 'deletePersonLog',
    method: 'DELETE',
    path: `/v0/person_logs/${str(personLog, 'personLogId')}`,
    expect: 200,
  });
  const accountLogBody = {
    source: 'crm',
    type: 'deal-won',
    payload: { plan: 'team' },
    domain: 'acme.example',
    name: 'Acme',
    idempotencyKey: `deal-${Date.now()}`,
  };
  const accountLog = await call({
    operation: 'createAccountLog',
    method: 'POST',
    path: '/v0/account_logs',
    expect: 201,
    body: accountLogBody,
  });
  await rec.send({
    operation: 'createAccountLog',
    method: 'POST',
    path: '/v0/account_logs',
    expect: 200,
    key,
    body: accountLogBody,
  });
  const account = `/v0/accounts/${str(accountLog, 'accountId')}`;
  await call({ operation: 'listAccounts', method: 'GET', path: '/v0/accounts', expect: 200 });
  await call({ operation: 'getAccount', method: 'GET', path: account, expect: 200 });
  await call({ operation: 'listAccountActivity', method: 'GET', path: `${account}/activity`, expect: 200 });
  await call({
    operation: 'deleteAccountLog',
    method: 'DELETE',
    path: `/v0/account_logs/${str(accountLog, 'accountLogId')}`,
    expect: 200,
  });
}
