import { JSON_OPERATION_NAMES, type OperationName } from '@customer-api/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verdict } from './bad-input/check.js';
import { type FuzzContext, type FuzzRequest, OperationFuzzer } from './bad-input/requests.js';
import { transportMutations } from './bad-input/transport.js';
import { addDeliveryId, createEvent, createFixtures } from './lib/fixtures.js';
import { IN_PROCESS_BASE_URL, type InProcessApp, startInProcess } from './lib/in-process.js';
import { PROFILE, report, sized } from './lib/profile.js';

// The asset byte operations (raw bodies, signed links) have their own attacks in the server's
// `modules/assets/content/*.test.ts`: oversized, aborted and malformed uploads, forged links.
const TOTAL = sized(10_600, 60_000);
const PER_OPERATION = Math.ceil(TOTAL / JSON_OPERATION_NAMES.length);

let server: InProcessApp;
let ctx: FuzzContext;
const counts = new Map<string, number>();

/** First-page cursors (limit=1) of every list operation, for one tenant. */
async function cursorsOf(
  apiKey: string,
  ids: Record<string, string>,
): Promise<Partial<Record<OperationName, string>>> {
  const out: Partial<Record<OperationName, string>> = {};
  for (const name of JSON_OPERATION_NAMES) {
    const fuzzer = new OperationFuzzer(name, {
      apiKey,
      ids,
      cursors: {},
      foreignCursors: [],
      stableIds: ids,
    });
    if (fuzzer.route.method !== 'GET' || !fuzzer.hasQuery) continue;
    const path = fuzzer.route.path.replace(/:([a-z_]+)/g, (_m, n: string) => ids[n] ?? '');
    const res = await server.app.inject({ url: `${path}?limit=1`, headers: { 'x-api-key': apiKey } });
    const cursor = (res.json() as { nextCursor?: string | null }).nextCursor;
    if (cursor) out[name] = cursor;
  }
  return out;
}

function forgedCursors(own: string[], foreign: string[]): string[] {
  const flip = (c: string, i: number) => c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
  const forged = own.flatMap((c) => [
    flip(c, 3),
    flip(c, c.length - 2),
    c.slice(0, -4),
    `${c}x`,
    c.split('.')[0] ?? c,
  ]);
  const payload = Buffer.from(JSON.stringify([1, Date.now(), 'page_00000000000000000000000000'])).toString(
    'base64url',
  );
  return [...foreign, ...forged, `${payload}.${'A'.repeat(43)}`, 'bm90LWEtY3Vyc29y', '.', 'a.b.c', '%%%'];
}

async function send(req: FuzzRequest): Promise<string | undefined> {
  const res = await server.app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers: req.headers,
    ...(req.payload === undefined ? {} : { payload: req.payload }),
  });
  counts.set(req.category, (counts.get(req.category) ?? 0) + 1);
  return verdict(req, res, IN_PROCESS_BASE_URL);
}

function requestsFor(name: OperationName): fc.Arbitrary<FuzzRequest> {
  const f = new OperationFuzzer(name, ctx);
  const valid = fc
    .record({ path: f.validPath(), query: f.validQuery(), body: f.validBody() })
    .map((parts) => f.build('valid', parts));
  const arbs: Array<{ arbitrary: fc.Arbitrary<FuzzRequest>; weight: number }> = [
    { arbitrary: valid, weight: 1 },
    { arbitrary: valid.chain((base) => transportMutations(base, f.hasBody)), weight: 2 },
  ];
  if (f.pathNames.length > 0) {
    const path = fc.record({ path: f.badPath(), query: f.validQuery(), body: f.validBody() });
    arbs.push({ arbitrary: path.map((p) => f.build('bad-path', p)), weight: 2 });
  }
  if (f.hasQuery) {
    const query = fc.record({ path: f.validPath(), query: f.badQuery(), body: f.validBody() });
    arbs.push({ arbitrary: query.map((p) => f.build('bad-query', p)), weight: 2 });
    const cursors = forgedCursors(
      ctx.cursors[name] ? [ctx.cursors[name]] : [],
      ctx.foreignCursors.filter((c) => c !== ctx.cursors[name]),
    );
    const forged = fc.record({
      path: fc.constant(Object.fromEntries(f.pathNames.map((n) => [n, ctx.stableIds[n] ?? '']))),
      cursor: fc.constantFrom(...cursors),
    });
    arbs.push({
      arbitrary: forged.map(({ path, cursor }) => ({
        ...f.build('forged-cursor', { path, query: { cursor }, body: undefined }),
        expect: 'validation' as const,
      })),
      weight: 2,
    });
  }
  if (f.hasBody) {
    const body = fc.record({ path: f.validPath(), query: f.validQuery(), body: f.badBody() });
    arbs.push({ arbitrary: body.map((p) => f.build('bad-body', p)), weight: 4 });
  }
  return fc.oneof(...arbs);
}

describe(`bad input from the contract's schemas against every operation (${PROFILE})`, () => {
  beforeAll(async () => {
    server = await startInProcess();
    const a = await server.tenant('fuzz-a');
    const b = await server.tenant('fuzz-b');
    const ids = await createFixtures(server.app, a.apiKey, 'fuzz-a1');
    await createFixtures(server.app, a.apiKey, 'fuzz-a2');
    const stableIds = await createFixtures(server.app, a.apiKey, 'fuzz-a3');
    const idsB = await createFixtures(server.app, b.apiKey, 'fuzz-b1');
    await createFixtures(server.app, b.apiKey, 'fuzz-b2');
    await createEvent(server.app, a.apiKey, ids);
    await server.dispatchOnce();
    await addDeliveryId(server.app, a.apiKey, ids);
    const own = await cursorsOf(a.apiKey, ids);
    const foreign = Object.values(await cursorsOf(b.apiKey, idsB));
    ctx = {
      apiKey: a.apiKey,
      ids,
      cursors: own,
      foreignCursors: [...foreign, ...Object.values(own)],
      stableIds,
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each(JSON_OPERATION_NAMES)(
    '%s: no 5xx, every error the specified object with the predicted code',
    async (name) => {
      await fc.assert(
        fc.asyncProperty(requestsFor(name), async (req) => {
          const problem = await send(req);
          if (problem) throw new Error(`${req.category} ${req.method} ${req.url.slice(0, 300)}\n${problem}`);
        }),
        { numRuns: PER_OPERATION, endOnFailure: true },
      );
    },
  );

  it('the server is healthy afterwards, and the run reached its size', async () => {
    for (const url of ['/healthz', '/readyz'])
      expect((await server.app.inject({ url })).statusCode).toBe(200);
    const list = await server.app.inject({ url: '/v0/pages', headers: { 'x-api-key': ctx.apiKey } });
    expect(list.statusCode).toBe(200);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    report('bad-input', {
      requests: total,
      operations: JSON_OPERATION_NAMES.length,
      serverErrors: 0,
      ...Object.fromEntries(counts),
    });
    expect(total).toBeGreaterThanOrEqual(sized(10_000, 50_000));
  });
});
