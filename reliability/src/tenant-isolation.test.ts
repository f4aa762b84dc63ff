import { contract, ErrorSchema, JSON_OPERATION_NAMES, type OperationName } from '@customer-api/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationFuzzer } from './bad-input/requests.js';
import { addDeliveryId, createEvent, createFixtures, type FixtureIds } from './lib/fixtures.js';
import { type InProcessApp, startInProcess } from './lib/in-process.js';
import { report } from './lib/profile.js';

let server: InProcessApp;
let a: { apiKey: string; ids: FixtureIds };
let b: { apiKey: string; ids: FixtureIds; allIds: Set<string> };
const tally = { foreignIdRequests: 0, listRequests: 0, foreignCursorRequests: 0, leaks: 0 };

// Byte operations: an upload is refused under another tenant's key by the same handle, and a
// download's tenant is in its signed link (`modules/assets/content/content.download.test.ts`).
const withIds = JSON_OPERATION_NAMES.filter((n) => contract[n].path.includes(':'));
const lists = JSON_OPERATION_NAMES.filter(
  (n) => contract[n].method === 'GET' && 'query' in contract[n] && contract[n].query,
);

function url(name: OperationName, ids: FixtureIds, query = ''): string {
  return contract[name].path.replace(/:([a-z_]+)/g, (_m, p: string) => ids[p] ?? `missing_${p}`) + query;
}

/** A body the contract accepts, so that only the ids decide the answer. */
function validBody(name: OperationName): string | undefined {
  const fuzzer = new OperationFuzzer(name, {
    apiKey: '',
    ids: {},
    cursors: {},
    foreignCursors: [],
    stableIds: {},
  });
  if (!fuzzer.hasBody) return undefined;
  const [body] = fc.sample(fuzzer.validBody(), { numRuns: 1, seed: 42 });
  return JSON.stringify(body ?? {});
}

async function send(name: OperationName, path: string, apiKey: string) {
  const payload = validBody(name);
  return server.app.inject({
    method: contract[name].method as 'GET',
    url: path,
    headers: { 'x-api-key': apiKey, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload } : {}),
  });
}

/** Every string anywhere in a JSON value. */
function strings(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

beforeAll(async () => {
  server = await startInProcess();
  const ta = await server.tenant('isolation-a');
  const tb = await server.tenant('isolation-b');
  a = { apiKey: ta.apiKey, ids: await createFixtures(server.app, ta.apiKey, 'iso-a1') };
  await createFixtures(server.app, ta.apiKey, 'iso-a2');
  const idsB = await createFixtures(server.app, tb.apiKey, 'iso-b1');
  await createFixtures(server.app, tb.apiKey, 'iso-b2');
  await createEvent(server.app, ta.apiKey, a.ids);
  await createEvent(server.app, tb.apiKey, idsB);
  await server.dispatchOnce();
  await addDeliveryId(server.app, ta.apiKey, a.ids);
  await addDeliveryId(server.app, tb.apiKey, idsB);
  // Every id tenant B can see, from its own listings: none may ever appear in A's answers.
  const allIds = new Set(Object.values(idsB));
  for (const name of lists) {
    const res = await server.app.inject({
      url: url(name, idsB, '?limit=100'),
      headers: { 'x-api-key': tb.apiKey },
    });
    for (const s of strings(res.json())) if (/^[a-z]+_[0-9a-z]{26}$/.test(s)) allIds.add(s);
  }
  b = { apiKey: tb.apiKey, ids: idsB, allIds };
});
afterAll(async () => {
  report('tenant-isolation', { ...tally, operationsWithIds: withIds.length, listOperations: lists.length });
  await server?.close();
});

describe("tenant B's ids with tenant A's key", () => {
  it.each(withIds)('%s: 404 for every foreign id, alone or under an own parent', async (name) => {
    const params = [...contract[name].path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
    const variants = [b.ids, ...params.map((p) => ({ ...a.ids, [p]: b.ids[p] as string }))];
    for (const ids of variants) {
      const res = await send(name, url(name, ids), a.apiKey);
      tally.foreignIdRequests += 1;
      if (name === 'getAudienceSessionInteractions') {
        // Decided: an unknown or foreign session reads as { found: false } (DESIGN.md).
        expect(res.json()).toEqual({ found: false, interactions: [] });
        continue;
      }
      expect(res.statusCode, `${name} ${res.body}`).toBe(404);
      expect(ErrorSchema.parse(res.json()).code).toBe('NOT_FOUND');
    }
  });

  it("left tenant B's resources untouched, and B still reads them", async () => {
    for (const name of withIds.filter((n) => contract[n].method === 'GET')) {
      const res = await send(name, url(name, b.ids), b.apiKey);
      expect(res.statusCode, `${name} ${res.body}`).toBe(200);
    }
    const page = (await send('getPage', url('getPage', b.ids), b.apiKey)).json() as Record<string, unknown>;
    expect(page).toMatchObject({ archivedAt: null, deletedAt: null });
    const sub = (await send('getWebhookSubscription', url('getWebhookSubscription', b.ids), b.apiKey)).json();
    expect(sub).toMatchObject({ status: 'active' });
  });
});

describe('listings and cursors across tenants', () => {
  it.each(lists)("%s: tenant A's pages never show tenant B's rows", async (name) => {
    let cursor: string | undefined;
    do {
      const q = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await server.app.inject({ url: url(name, a.ids, q), headers: { 'x-api-key': a.apiKey } });
      tally.listRequests += 1;
      expect(res.statusCode, res.body).toBe(200);
      const leaked = [...strings(res.json())].filter((s) => b.allIds.has(s));
      tally.leaks += leaked.length;
      expect(leaked).toEqual([]);
      cursor = (res.json() as { nextCursor?: string }).nextCursor ?? undefined;
    } while (cursor);
  });

  it.each(lists)("%s: tenant B's cursor is refused for tenant A", async (name) => {
    const first = await server.app.inject({
      url: url(name, b.ids, '?limit=1'),
      headers: { 'x-api-key': b.apiKey },
    });
    const cursor = (first.json() as { nextCursor?: string }).nextCursor;
    if (!cursor) return; // one page only: nothing to replay
    const res = await server.app.inject({
      url: url(name, a.ids, `?limit=1&cursor=${encodeURIComponent(cursor)}`),
      headers: { 'x-api-key': a.apiKey },
    });
    tally.foreignCursorRequests += 1;
    expect(res.statusCode, res.body).toBe(400);
    expect(ErrorSchema.parse(res.json())).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
