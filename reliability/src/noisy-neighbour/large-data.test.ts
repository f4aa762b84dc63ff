// One tenant cannot slow down another, and no input gets a 500: each finding of the attack on the
// first release candidate (two tenants, far under the rate limit) replayed against the real app.
// Findings 1 and 2: a large trash and large message histories.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessApp } from '../lib/in-process.js';
import { expectError, noisyRequests, startNoisyTenants, type Tenant } from '../lib/noisy-neighbour.js';
import { report } from '../lib/profile.js';
import { query } from '../lib/sql.js';

let server: InProcessApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  ({ server, a, b } = await startNoisyTenants());
});
afterAll(async () => {
  await server?.close();
});

const { get, post, audiencePath } = noisyRequests(() => server);

describe('1. a search the trigram index cannot serve', () => {
  it('is refused at once for a large trash, and the other tenant is served meanwhile', async () => {
    const rows = 20_000;
    await query(
      server.database,
      `INSERT INTO assets (id, tenant_id, name, data_type, file_id, lifecycle_state, created_at, updated_at, trashed_at)
       SELECT 'asset_' || md5($1::text || n), $1, 'logo ' || n, 'image', 'f', 'active', now(), now(), now()
       FROM generate_series(1, $2::int) AS n`,
      [a.tenantId, rows],
    );
    await query(
      server.database,
      `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, 'assets:trash', $2)`,
      [a.tenantId, rows],
    );
    const attack = `/v0/assets/trash?limit=100&query=${'%25'.repeat(200)}`;
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => get(a.apiKey, attack)),
      get(b.apiKey, '/v0/pages'),
    ]);
    for (const res of answers.slice(0, 8)) {
      expect(expectError(res, 400, 'VALIDATION_ERROR').detail).toMatch(/three letters or digits/);
    }
    expect(answers[8]?.statusCode).toBe(200);
    // A search with letters still finds every match, counted exactly.
    const found = await get(a.apiKey, '/v0/assets/trash?limit=1&query=logo%201999');
    expect(found.json()).toMatchObject({ totalCount: 11 }); // 1999 and 19990..19999
    report('noisy-neighbour-trash-search', { trashedAssets: rows, parallelSearches: 8 });
  });
});

describe('2. message histories', () => {
  const message = (resultBytes: number) =>
    JSON.stringify({
      role: 'assistant',
      content: 'tool output',
      toolCalls: [
        { id: 'c', name: 'fetch', status: 'complete', arguments: {}, result: 'x'.repeat(resultBytes) },
      ],
    });

  it("refuses a 1 MiB message and a message past a full history; 8 parallel reads are each served within 4 MiB or refused with 429 (the tenant's line of large responses)", async () => {
    const path = `${await audiencePath(a.apiKey)}/messages`;
    expectError(await post(a.apiKey, path, message(1024 * 1024 - 1024)), 400, 'VALIDATION_ERROR');
    let stored = 0;
    let refusal: { statusCode: number; body: string } | undefined;
    while (!refusal && stored < 40) {
      const res = await post(a.apiKey, path, message(250_000));
      if (res.statusCode === 201) stored += 1;
      else refusal = res;
    }
    expect(expectError(refusal ?? { statusCode: 0, body: '{}' }, 400, 'VALIDATION_ERROR').detail).toMatch(
      /history is full/,
    );
    // A tenant streams one large response at a time with three in line; past that: 429.
    const reads = await Promise.all(Array.from({ length: 8 }, () => get(a.apiKey, path)));
    const served = reads.filter((read) => read.statusCode === 200);
    expect(served.length).toBeGreaterThanOrEqual(1);
    for (const read of served) expect(Buffer.byteLength(read.body)).toBeLessThan(4.5 * 1024 * 1024);
    for (const read of reads.filter((r) => r.statusCode !== 200)) {
      expect(expectError(read, 429, 'RATE_LIMITED').detail).toMatch(/large responses in progress/);
    }
    expect((await get(b.apiKey, '/v0/pages')).statusCode).toBe(200);
    report('noisy-neighbour-message-history', {
      stored,
      served: served.length,
      readBytes: Buffer.byteLength(served[0]?.body ?? ''),
    });
  });
});
