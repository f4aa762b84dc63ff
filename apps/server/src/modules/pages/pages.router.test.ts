import { PageSchema, RestoredPageSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

describe('POST /v0/pages', () => {
  it('creates a draft page (201) that reads back the same', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v0/pages',
      headers: t.auth(),
      payload: {
        name: 'N',
        title: 'T',
        pageContext: 'C',
        brandId: 'b',
        pageType: 'outbound',
        metadata: { title: 'M' },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const page = PageSchema.parse(res.json());
    expect(page).toMatchObject({
      name: 'N',
      status: 'draft',
      pageType: 'outbound',
      audiencesCount: 0,
      archivedAt: null,
    });
    expect(page.pageId).toMatch(/^page_[0-9a-z]{26}$/);
    expect(page.metadata).toEqual({ title: 'M' });
    const got = await t.app.inject({ url: `/v0/pages/${page.pageId}`, headers: t.auth() });
    expect(got.json()).toEqual(page);
  });

  it('rejects a body missing required fields with validation details', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v0/pages',
      headers: t.auth(),
      payload: { name: 'x' },
    });
    const body = expectApiError(res, 'VALIDATION_ERROR');
    const details = body.details as Array<{ field: string; issues: Array<{ path: string[] }> }>;
    expect(details[0]?.field).toBe('body');
    expect(details[0]?.issues.map((i) => i.path[0])).toEqual(expect.arrayContaining(['title', 'pageType']));
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: '/v0/pages',
      headers: t.auth(),
      payload: { name: 'N', title: 'T', pageContext: 'C', brandId: 'b', pageType: 'custom' },
    }),
    { write: true, hasIds: false },
  );
});

describe('GET /v0/pages/{page_id}', () => {
  it('answers 404 for an unknown page', async () => {
    expectApiError(await t.app.inject({ url: '/v0/pages/page_unknown', headers: t.auth() }), 'NOT_FOUND');
  });
  itEnforcesAuth(
    t,
    async () => {
      const page = await t.seed.page(t.tenant);
      return { method: 'GET', url: `/v0/pages/${page.pageId}`, headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});

describe('archive, delete and restore', () => {
  const post = (url: string, payload?: unknown) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: t.auth(),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('restores an archived page to its prior status', async () => {
    const page = await t.seed.page(t.tenant);
    const archived = await post(`/v0/pages/${page.pageId}/archive`, {});
    expect(archived.json()).toMatchObject({ status: 'archived', archivedAt: expect.any(String) });
    expectApiError(await post(`/v0/pages/${page.pageId}/archive`, {}), 'CONFLICT');
    const restored = await post(`/v0/pages/${page.pageId}/restore`, {});
    expect(restored.statusCode).toBe(200);
    expect(RestoredPageSchema.parse(restored.json())).toMatchObject({
      status: 'draft',
      archivedAt: null,
      deletedAt: null,
    });
    expectApiError(await post(`/v0/pages/${page.pageId}/restore`, {}), 'CONFLICT');
  });

  it('deletes a page out of the list and its count, and restores it back', async () => {
    const page = await t.seed.page(t.tenant);
    const del = await t.app.inject({ method: 'DELETE', url: `/v0/pages/${page.pageId}`, headers: t.auth() });
    expect(del.json()).toMatchObject({ deletedAt: expect.any(String) });
    expectApiError(
      await t.app.inject({ method: 'DELETE', url: `/v0/pages/${page.pageId}`, headers: t.auth() }),
      'CONFLICT',
    );
    let list = (await t.app.inject({ url: '/v0/pages', headers: t.auth() })).json();
    expect(list).toMatchObject({ items: [], totalCount: 0 });
    // An absent body on a restore is treated as the empty object.
    const restored = await post(`/v0/pages/${page.pageId}/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    list = (await t.app.inject({ url: '/v0/pages', headers: t.auth() })).json();
    expect(list).toMatchObject({ totalCount: 1, items: [{ pageId: page.pageId, deletedAt: null }] });
  });

  it('rejects a restore body with unknown keys, and non-object bodies', async () => {
    const page = await t.seed.page(t.tenant);
    await post(`/v0/pages/${page.pageId}/archive`, {});
    expectApiError(await post(`/v0/pages/${page.pageId}/restore`, { force: true }), 'VALIDATION_ERROR');
    expectApiError(await post(`/v0/pages/${page.pageId}/restore`, [1]), 'VALIDATION_ERROR');
  });

  for (const action of ['archive', 'restore'] as const) {
    itEnforcesAuth(
      t,
      async () => {
        const page = await t.seed.page(t.tenant);
        if (action === 'restore') await post(`/v0/pages/${page.pageId}/archive`, {});
        return { method: 'POST', url: `/v0/pages/${page.pageId}/${action}`, headers: t.auth(), payload: {} };
      },
      { write: true, hasIds: true },
    );
  }
  itEnforcesAuth(
    t,
    async () => {
      const page = await t.seed.page(t.tenant);
      return { method: 'DELETE', url: `/v0/pages/${page.pageId}`, headers: t.auth() };
    },
    { write: true, hasIds: true },
  );
});

describe('GET /v0/pages', () => {
  it('walks every page newest first without duplicates or gaps, with an exact totalCount', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) created.push((await t.seed.page(t.tenant, { name: `p${i}` })).pageId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v0/pages?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await t.app.inject({ url, headers: t.auth() });
      const body = res.json();
      expect(body.totalCount).toBe(7);
      expect(body.items.length).toBeLessThanOrEqual(3);
      expect(body.hasMore).toBe(body.nextCursor !== null);
      seen.push(...body.items.map((p: { pageId: string }) => p.pageId));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 items and rejects limits outside 1..100', async () => {
    const res = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(res.json()).toEqual({ items: [], hasMore: false, nextCursor: null, totalCount: 0 });
    for (const limit of ['0', '101', 'abc', '1.5', '-3']) {
      const bad = await t.app.inject({ url: `/v0/pages?limit=${limit}`, headers: t.auth() });
      const body = expectApiError(bad, 'VALIDATION_ERROR');
      expect(body.details).toEqual([expect.objectContaining({ field: 'query' })]);
    }
  });

  it('rejects forged, altered and foreign cursors with 400', async () => {
    for (let i = 0; i < 3; i += 1) await t.seed.page(t.tenant);
    const first = (await t.app.inject({ url: '/v0/pages?limit=1', headers: t.auth() })).json();
    const cursor: string = first.nextCursor;
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify([1, Date.now() + 1e9, 'page_zzz'])).toString('base64url');
    const other = await t.seed.tenant();
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${mac?.slice(0, -2)}AA`,
      'garbage',
      `${payload}`,
      `${cursor}.x`,
    ]) {
      expectApiError(
        await t.app.inject({ url: `/v0/pages?cursor=${encodeURIComponent(bad)}`, headers: t.auth() }),
        'VALIDATION_ERROR',
      );
    }
    const foreign = await t.app.inject({
      url: `/v0/pages?cursor=${encodeURIComponent(cursor)}`,
      headers: other.auth(),
    });
    expectApiError(foreign, 'VALIDATION_ERROR');
  });

  it("never shows another tenant's pages", async () => {
    const other = await t.seed.tenant();
    await t.seed.page(other);
    const res = await t.app.inject({ url: '/v0/pages', headers: t.auth() });
    expect(res.json()).toMatchObject({ items: [], totalCount: 0 });
  });

  itEnforcesAuth(t, async () => ({ method: 'GET', url: '/v0/pages', headers: t.auth() }), {
    write: false,
    hasIds: false,
  });
});
