import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { send, useAccountLogsApp } from '../../test/accounts.js';
import { expectApiError } from '../../test/http-cases.js';

const t = useAccountLogsApp();

describe('POST /v0/account_logs: bad input', () => {
  const valid = { source: 'crm', type: 'note', payload: {}, domain: 'valid.example' };
  const nonString = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string()),
    // No __proto__/constructor keys: the JSON parser refuses those bodies outright (tested elsewhere).
    fc.object().filter((o) => !/"(__proto__|constructor|prototype)"/.test(JSON.stringify(o))),
  );
  const kebab = /^[a-z0-9]+(-[a-z0-9]+)*$/;
  const badKebab = fc.oneof(
    fc.string({ maxLength: 120 }).filter((s) => !kebab.test(s)),
    fc.stringMatching(/^[a-z0-9]{101,140}$/),
    nonString,
  );
  const badText = (max: number) =>
    fc.oneof(fc.constant(''), fc.string({ minLength: max + 1, maxLength: max + 40 }), nonString);
  const cases: Array<[string, fc.Arbitrary<unknown>]> = [
    ['source', badKebab],
    ['type', badKebab],
    ['name', badText(255)],
    ['idempotencyKey', badText(255)],
  ];

  for (const [field, arbitrary] of cases) {
    it(`answers 400 naming ${field} for every invalid ${field}, never 500`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          const res = await send(t, 'POST', '/v0/account_logs', { ...valid, [field]: value });
          expect(res.statusCode, res.body).toBe(400);
          const details = res.json().details as Array<{ field: string; issues: Array<{ path: string[] }> }>;
          expect(details.map((d) => d.field)).toEqual(['body']);
          expect(details[0]?.issues.some((issue) => issue.path[0] === field)).toBe(true);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('answers 400 for payloads that are not objects, unknown members and malformed JSON', async () => {
    for (const payload of [null, [], 'text', 3]) {
      const res = await send(t, 'POST', '/v0/account_logs', { ...valid, payload });
      expect(res.json().details[0].issues[0].path).toEqual(['payload']);
    }
    expectApiError(await send(t, 'POST', '/v0/account_logs', { ...valid, extra: 1 }), 'VALIDATION_ERROR');
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/v0/account_logs',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      payload: '{"source":',
    });
    expectApiError(malformed, 'VALIDATION_ERROR');
  });

  it('answers 400, not 500, for text PostgreSQL cannot store', async () => {
    expectApiError(
      await send(t, 'POST', '/v0/account_logs', { ...valid, name: 'a\u0000b' }),
      'VALIDATION_ERROR',
    );
    expectApiError(
      await send(t, 'POST', '/v0/account_logs', { ...valid, payload: { text: 'a\u0000b' } }),
      'VALIDATION_ERROR',
    );
  });
});
