import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestApp } from './test/test-app.js';

const t = useTestApp();

/** Every route of endpoints 1-7 and their writes, with `{p}`, `{a}`, `{v}`, `{m}` for real ids. */
const ROUTES: Array<[method: 'GET' | 'POST' | 'DELETE', path: string]> = [
  ['GET', '/v0/pages'],
  ['POST', '/v0/pages'],
  ['GET', '/v0/pages/{p}'],
  ['POST', '/v0/pages/{p}/archive'],
  ['DELETE', '/v0/pages/{p}'],
  ['POST', '/v0/pages/{p}/restore'],
  ['GET', '/v0/pages/{p}/audiences'],
  ['POST', '/v0/pages/{p}/audiences'],
  ['GET', '/v0/pages/{p}/audiences/{a}'],
  ['POST', '/v0/pages/{p}/audiences/{a}/archive'],
  ['POST', '/v0/pages/{p}/audiences/{a}/restore'],
  ['POST', '/v0/pages/{p}/audiences/{a}/versions'],
  ['GET', '/v0/pages/{p}/audiences/{a}/versions/{v}'],
  ['POST', '/v0/pages/{p}/audiences/{a}/versions/{v}/publish'],
  ['POST', '/v0/pages/{p}/audiences/{a}/versions/{v}/cancel'],
  ['GET', '/v0/pages/{p}/audiences/{a}/messages'],
  ['POST', '/v0/pages/{p}/audiences/{a}/messages'],
  ['POST', '/v0/pages/{p}/audiences/{a}/messages/{m}/restore'],
];

async function seedIds() {
  const page = await t.seed.page(t.tenant);
  const audience = await t.seed.audience(t.tenant, page.pageId);
  const version = await t.seed.version(t.tenant, page.pageId, audience.audienceId);
  const res = await t.app.inject({
    method: 'POST',
    url: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`,
    headers: t.auth(),
    payload: {
      role: 'user',
      content: 'x',
      changes: [{ field: 'metaTitle', newValue: 't', status: 'applied' }],
    },
  });
  return { p: page.pageId, a: audience.audienceId, v: version.versionId, m: res.json().messageId as string };
}

const fill = (path: string, ids: Record<string, string>) =>
  path.replace(/\{(\w)\}/g, (_, k: string) => ids[k] ?? '');

// Bodies a careless or hostile client might send.
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    { name: fc.jsonValue(), title: fc.jsonValue(), role: fc.jsonValue(), content: fc.jsonValue() },
    { requiredKeys: [] },
  ),
  fc.record({
    changes: fc.array(fc.record({ field: fc.string(), newValue: fc.jsonValue(), status: fc.string() })),
  }),
  fc
    .string({ unit: 'grapheme-composite' })
    .map((s) => ({ customName: s, supplementaryContext: `${s}\u0000` })),
);

describe('malformed input never answers 500', () => {
  it('holds for random JSON bodies on every route', async () => {
    const ids = await seedIds();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, async ([method, path], payload) => {
        const res = await t.app.inject({
          method,
          url: fill(path, ids),
          headers: { ...t.auth(), 'content-type': 'application/json' },
          payload: JSON.stringify(payload),
        });
        expect(res.statusCode, `${method} ${path} ${JSON.stringify(payload)} -> ${res.body}`).toBeLessThan(
          500,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('holds for random path segments and query strings', async () => {
    const ids = await seedIds();
    const segment = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('%', '%00', '..', '%2F', ' '),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        segment,
        fc.string(),
        async ([method, path], id, query) => {
          const url = `${fill(path, { ...ids, a: encodeURIComponent(id) })}?${encodeURIComponent(query)}=${encodeURIComponent(id)}&limit=${encodeURIComponent(query)}`;
          const res = await t.app.inject({
            method,
            url,
            headers: t.auth(),
            ...(method === 'POST' ? { payload: {} } : {}),
          });
          expect(res.statusCode, `${method} ${url} -> ${res.body}`).toBeLessThan(500);
          expect(res.headers['x-request-id']).toMatch(/^req_/);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('holds for odd headers: duplicate keys, huge keys, odd content types', async () => {
    const ids = await seedIds();
    const cases: Array<Record<string, string | string[]>> = [
      { 'x-api-key': [t.tenant.apiKey, t.tenant.apiKey] },
      { 'x-api-key': 'k'.repeat(10_000) },
      { ...t.auth(), 'content-type': 'application/json; charset=latin1' },
      { ...t.auth(), 'content-type': 'application/vnd.api+json' },
      { ...t.auth(), 'content-type': 'multipart/form-data; boundary=x' },
    ];
    for (const headers of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v0/pages/${ids.p}/archive`,
        headers,
        payload: '{}',
      });
      expect(res.statusCode, JSON.stringify(headers).slice(0, 100)).toBeLessThan(500);
    }
  });
});
