import { AudienceSchema, RestoredAudienceSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const post = (url: string, payload: unknown = {}) =>
  t.app.inject({ method: 'POST', url, headers: t.auth(), payload: payload as object });
const get = (url: string) => t.app.inject({ url, headers: t.auth() });

describe('POST /v0/pages/{page_id}/audiences', () => {
  it('creates a draft audience with computed and effective names and merged metadata', async () => {
    const page = await t.seed.page(t.tenant, {
      name: 'Home',
      metadata: { title: 'Page title', description: 'Page desc' },
    });
    const res = await post(`/v0/pages/${page.pageId}/audiences`, {
      metadataOverride: { title: 'Custom title' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const audience = AudienceSchema.parse(res.json());
    expect(audience).toMatchObject({
      pageId: page.pageId,
      status: 'draft',
      computedName: 'Home · Audience 1',
      customName: null,
      effectiveName: 'Home · Audience 1',
      latestVersion: null,
      publishedVersion: null,
      effectiveMetadata: { title: 'Custom title', description: 'Page desc' },
      metadataOverride: { title: 'Custom title' },
    });
    const named = (await post(`/v0/pages/${page.pageId}/audiences`, { customName: 'VIPs' })).json();
    expect(named).toMatchObject({
      customName: 'VIPs',
      effectiveName: 'VIPs',
      computedName: 'Home · Audience 2',
    });
    expect((await get(`/v0/pages/${page.pageId}`)).json().audiencesCount).toBe(2);
  });

  it('answers 409 under an archived page and 404 under an unknown one', async () => {
    const page = await t.seed.page(t.tenant);
    await post(`/v0/pages/${page.pageId}/archive`);
    expectApiError(await post(`/v0/pages/${page.pageId}/audiences`), 'CONFLICT');
    expectApiError(await post('/v0/pages/page_nope/audiences'), 'NOT_FOUND');
  });

  it("links a person of the tenant; an unknown or another tenant's personId is 404 and creates nothing", async () => {
    const page = await t.seed.page(t.tenant);
    const person = (await post('/v0/persons', { name: 'Jane', email: 'jane@linked.example' })).json();
    const linked = await post(`/v0/pages/${page.pageId}/audiences`, { personId: person.personId });
    expect(linked.statusCode, linked.body).toBe(201);
    expect(linked.json()).toMatchObject({ personId: person.personId });

    const other = await t.seed.tenant();
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/v0/persons',
      headers: other.auth(),
      payload: { name: 'Max', email: 'max@other.example' },
    });
    expect(foreign.statusCode, foreign.body).toBe(201);
    const unknownId = 'person_0000000000000000000000000z';
    const details = [];
    for (const personId of [unknownId, foreign.json().personId as string]) {
      const error = expectApiError(
        await post(`/v0/pages/${page.pageId}/audiences`, { personId }),
        'NOT_FOUND',
      );
      expect(error.detail).toContain('personId');
      details.push(String(error.detail).replace(personId, '<id>'));
    }
    // Another tenant's person reads exactly like one that does not exist.
    expect(details[1]).toBe(details[0]);
    expect((await get(`/v0/pages/${page.pageId}`)).json().audiencesCount).toBe(1);
    expect((await get(`/v0/pages/${page.pageId}/audiences`)).json().totalCount).toBe(1);
  });

  it('rejects invalid bodies', async () => {
    const page = await t.seed.page(t.tenant);
    for (const bad of [
      { customName: '' },
      { actionUrlOverride: 'not a url' },
      { unknown: 1 },
      { isNewPageAgent: 'yes' },
    ]) {
      expectApiError(await post(`/v0/pages/${page.pageId}/audiences`, bad), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => {
      const page = await t.seed.page(t.tenant);
      return { method: 'POST', url: `/v0/pages/${page.pageId}/audiences`, headers: t.auth(), payload: {} };
    },
    { write: true, hasIds: true },
  );
});

describe('GET /v0/pages/{page_id}/audiences', () => {
  it('walks all audiences newest first with an exact totalCount and page-bound cursors', async () => {
    const page = await t.seed.page(t.tenant);
    const otherPage = await t.seed.page(t.tenant);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await t.seed.audience(t.tenant, page.pageId)).audienceId);
    await t.seed.audience(t.tenant, otherPage.pageId);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const body = (await get(`/v0/pages/${page.pageId}/audiences?limit=2${query}`)).json();
      expect(body.totalCount).toBe(5);
      seen.push(...body.items.map((a: { audienceId: string }) => a.audienceId));
      if (body.nextCursor) {
        // The same cursor is not valid for another page's listing.
        const foreign = await get(
          `/v0/pages/${otherPage.pageId}/audiences?cursor=${encodeURIComponent(body.nextCursor)}`,
        );
        expectApiError(foreign, 'VALIDATION_ERROR');
      }
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('embeds the latest and published versions', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const v1 = await t.seed.version(t.tenant, page.pageId, audience.audienceId);
    await post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions/${v1.versionId}/publish`);
    const v2 = await t.seed.version(t.tenant, page.pageId, audience.audienceId);
    const [item] = (await get(`/v0/pages/${page.pageId}/audiences`)).json().items;
    expect(item).toMatchObject({
      status: 'published',
      latestVersion: { versionId: v2.versionId, versionNumber: 2 },
      publishedVersion: { versionId: v1.versionId, versionNumber: 1 },
    });
    expect(item.latestVersion).not.toHaveProperty('status');
  });

  itEnforcesAuth(
    t,
    async () => {
      const page = await t.seed.page(t.tenant);
      return { method: 'GET', url: `/v0/pages/${page.pageId}/audiences`, headers: t.auth() };
    },
    { write: false, hasIds: true },
  );
});

describe('get, archive and restore an audience', () => {
  it('restores an archived audience to its prior status', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const base = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}`;
    expectApiError(await post(`${base}/restore`), 'CONFLICT');
    expect((await post(`${base}/archive`)).json()).toMatchObject({
      status: 'archived',
      archivedAt: expect.any(String),
    });
    expectApiError(await post(`${base}/archive`), 'CONFLICT');
    const restored = await post(`${base}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(RestoredAudienceSchema.parse(restored.json())).toMatchObject({
      status: 'draft',
      archivedAt: null,
    });
    expect((await get(base)).json()).toMatchObject({ status: 'draft' });
  });

  it('answers 409 when the page is archived and 404 under another page', async () => {
    const page = await t.seed.page(t.tenant);
    const other = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    await post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/archive`);
    expectApiError(
      await post(`/v0/pages/${other.pageId}/audiences/${audience.audienceId}/restore`),
      'NOT_FOUND',
    );
    expectApiError(await get(`/v0/pages/${other.pageId}/audiences/${audience.audienceId}`), 'NOT_FOUND');
    await post(`/v0/pages/${page.pageId}/archive`);
    expectApiError(
      await post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/restore`),
      'CONFLICT',
    );
  });

  for (const [method, suffix, write] of [
    ['GET', '', false],
    ['POST', '/archive', true],
    ['POST', '/restore', true],
  ] as const) {
    itEnforcesAuth(
      t,
      async () => {
        const page = await t.seed.page(t.tenant);
        const audience = await t.seed.audience(t.tenant, page.pageId);
        const url = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}`;
        if (suffix === '/restore') await post(`${url}/archive`);
        return { method, url: `${url}${suffix}`, headers: t.auth(), ...(write ? { payload: {} } : {}) };
      },
      { write, hasIds: true },
    );
  }
});
