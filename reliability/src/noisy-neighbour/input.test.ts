// One tenant cannot slow down another, and no input gets a 500: each finding of the attack on the
// first release candidate (two tenants, far under the rate limit) replayed against the real app.
// Findings 5 and 9: deeply nested JSON, foreign ids, reserved keys and long path parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessApp } from '../lib/in-process.js';
import {
  expectError,
  noisyRequests,
  PAGE_BODY,
  startNoisyTenants,
  type Tenant,
} from '../lib/noisy-neighbour.js';

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

describe('5. JSON nested thousands of levels', () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('is 400 in an account log payload, a person log payload and message tool calls', async () => {
    const messages = `${await audiencePath(a.apiKey)}/messages`;
    for (const [url, payload] of [
      ['/v0/account_logs', `{"source":"s","domain":"deep.example","payload":${nested(5_000)}}`],
      ['/v0/person_logs', `{"personId":"person_x","source":"s","type":"t","payload":${nested(10_000)}}`],
      [
        messages,
        `{"role":"user","content":"c","toolCalls":[{"id":"1","name":"n","status":"complete","arguments":${nested(10_000)}}]}`,
      ],
    ] as const) {
      expect(expectError(await post(a.apiKey, url, payload), 400, 'VALIDATION_ERROR').detail).toMatch(
        /nested deeper than 64 levels/,
      );
    }
  });
});

describe('9. smaller findings', () => {
  it('refuses a personId or parentAssetId of another tenant with 404, storing nothing', async () => {
    const person = await post(b.apiKey, '/v0/persons', '{"name":"B person","email":"p@b-tenant.example"}');
    const asset = await post(b.apiKey, '/v0/assets', '{"name":"b.png","data":{"type":"image","fileId":"f"}}');
    const page = await post(a.apiKey, '/v0/pages', PAGE_BODY);
    const foreignPerson = await post(
      a.apiKey,
      `/v0/pages/${page.json().pageId}/audiences`,
      JSON.stringify({ personId: person.json().personId }),
    );
    expect(expectError(foreignPerson, 404, 'NOT_FOUND').detail).toMatch(/personId/);
    const foreignParent = await post(
      a.apiKey,
      '/v0/assets',
      JSON.stringify({
        name: 'a.png',
        data: { type: 'image', fileId: 'f' },
        parentAssetId: asset.json().assetId,
      }),
    );
    expect(expectError(foreignParent, 404, 'NOT_FOUND').detail).toMatch(/parentAssetId/);
    expect((await get(a.apiKey, `/v0/pages/${page.json().pageId}/audiences`)).json()).toMatchObject({
      totalCount: 0,
    });
  });

  it('names reserved keys precisely, accepts "constructor" as data, and answers long path parameters', async () => {
    const body = expectError(
      await post(
        a.apiKey,
        '/v0/account_logs',
        '{"source":"s","domain":"p.example","payload":{"__proto__":{"x":1}}}',
      ),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.detail).toMatch(/"__proto__".*reserved/);
    const data = await post(
      a.apiKey,
      '/v0/account_logs',
      '{"source":"s","domain":"p.example","payload":{"constructor":"Ferrari"}}',
    );
    expect(data.statusCode).toBe(201);
    const long = expectError(
      await get(a.apiKey, `/v0/pages/page_${'x'.repeat(200)}`),
      400,
      'VALIDATION_ERROR',
    );
    expect(long.detail).toMatch(/longer than 100 characters/);
    expect(JSON.stringify(long)).not.toContain('FST_ERR');
  });
});
