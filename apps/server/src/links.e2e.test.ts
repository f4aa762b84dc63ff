import { describe, expect, it } from 'vitest';
import { seedDemoData } from './cli/demo-data.js';
import { createAsset, putBytes } from './test/asset-content.js';
import { TEST_BASE_URL, useTestApp } from './test/test-app.js';

const t = useTestApp();

/** Every string in a JSON value that is an address of this server. */
function linksIn(value: unknown, found: Set<string>): void {
  if (typeof value === 'string') {
    if (value.startsWith(`${TEST_BASE_URL}/`)) found.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) linksIn(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) linksIn(item, found);
  }
}

describe('every URL the API hands out works', () => {
  it('follows each address in the responses over the demo data, an asset and an error, and gets no 404', async () => {
    await seedDemoData(t.database, t.config, t.tenant.tenantId);
    const asset = await createAsset(t);
    expect(
      (await putBytes(t, asset.assetId, Buffer.from('logo bytes'), { contentType: 'image/png' })).statusCode,
    ).toBe(200);
    const trashed = await t.app.inject({
      method: 'POST',
      url: `/v0/assets/${asset.assetId}/trash`,
      headers: t.auth(),
      payload: {},
    });
    const get = async (url: string) => (await t.app.inject({ url, headers: t.auth() })).json();

    const found = new Set<string>();
    const responses: unknown[] = [trashed.json(), await get('/v0/assets/trash')];
    const pages = await get('/v0/pages?limit=100');
    responses.push(pages);
    for (const page of pages.items as Array<{ pageId: string }>) {
      responses.push(await get(`/v0/pages/${page.pageId}`));
      const audiences = await get(`/v0/pages/${page.pageId}/audiences`);
      responses.push(audiences);
      for (const audience of audiences.items as Array<{ audienceId: string }>) {
        responses.push(await get(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`));
      }
    }
    // Errors of every kind a client meets name their page.
    for (const url of ['/v0/pages/pg_missing', '/v0/pages?limit=0', '/v0/nothing'])
      responses.push(await get(url));
    responses.push((await t.app.inject({ url: '/v0/pages' })).json());
    for (const response of responses) linksIn(response, found);

    const kinds = new Set([...found].map((link) => new URL(link).pathname.split('/').slice(1, 3).join('/')));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['errors/not_found', 'errors/validation_error', 'errors/unauthorized']),
    );
    expect([...found].some((link) => link.includes('/download?'))).toBe(true);
    expect([...found].some((link) => link.includes('/preview/download?'))).toBe(true);
    for (const link of [...found, `${TEST_BASE_URL}/docs`, `${TEST_BASE_URL}/openapi.json`]) {
      const url = new URL(link);
      const res = await t.app.inject({ url: url.pathname + url.search });
      expect(res.statusCode, link).toBeLessThan(400);
    }
  });
});
