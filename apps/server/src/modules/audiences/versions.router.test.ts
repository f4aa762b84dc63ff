import { AudienceVersionSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { useTestApp } from '../../test/test-app.js';

const t = useTestApp();

const post = (url: string, payload: unknown = {}) =>
  t.app.inject({ method: 'POST', url, headers: t.auth(), payload: payload as object });

async function setup() {
  const page = await t.seed.page(t.tenant);
  const audience = await t.seed.audience(t.tenant, page.pageId, { supplementaryContext: 'ctx' });
  return { page, audience, base: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions` };
}

const eventsOf = (tenantId: string) =>
  query<{ id: string; type: string; payload: unknown }>(
    t.database.db,
    'SELECT id, type, payload FROM webhook_events WHERE tenant_id = $1 ORDER BY created_at, id',
    [tenantId],
  );

describe('audience versions', () => {
  it('creates numbered drafts that read back, and records page.version.created in the outbox', async () => {
    const { page, audience, base } = await setup();
    const res = await post(base, {});
    expect(res.statusCode, res.body).toBe(201);
    const v1 = AudienceVersionSchema.parse(res.json());
    expect(v1).toMatchObject({
      versionNumber: 1,
      status: 'draft',
      supplementaryContext: 'ctx',
      publishedAt: null,
    });
    expect(v1.becameDraftAt).toBe(v1.createdAt);
    const v2 = (await post(base, { supplementaryContext: 'other' })).json();
    expect(v2).toMatchObject({ versionNumber: 2, supplementaryContext: 'other' });
    expect((await t.app.inject({ url: `${base}/${v1.versionId}`, headers: t.auth() })).json()).toEqual(v1);
    const events = await eventsOf(t.tenant.tenantId);
    expect(events.map((e) => e.type)).toEqual(['page.version.created', 'page.version.created']);
    expect(events[0]?.id).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(events[0]?.payload).toEqual({
      type: 'page.version.created',
      pageId: page.pageId,
      audienceId: audience.audienceId,
      versionId: v1.versionId,
      status: 'draft',
      createdAt: v1.createdAt,
    });
  });

  it('publishes a draft, archives the previously published one, and records both events', async () => {
    const { audience, base } = await setup();
    const v1 = (await post(base)).json();
    const v2 = (await post(base)).json();
    expect((await post(`${base}/${v1.versionId}/publish`)).json()).toMatchObject({ status: 'published' });
    const published = (await post(`${base}/${v2.versionId}/publish`)).json();
    expect(published).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    const old = (await t.app.inject({ url: `${base}/${v1.versionId}`, headers: t.auth() })).json();
    expect(old).toMatchObject({
      status: 'archived',
      archivedAt: expect.any(String),
      obsoleteAt: expect.any(String),
    });
    expectApiError(await post(`${base}/${v1.versionId}/publish`), 'CONFLICT');
    const types = (await eventsOf(t.tenant.tenantId)).map((e) => [
      e.type,
      (e.payload as { versionId: string }).versionId,
    ]);
    expect(types).toEqual([
      ['page.version.created', v1.versionId],
      ['page.version.created', v2.versionId],
      ['page.version.published', v1.versionId],
      ['page.version.archived', v1.versionId],
      ['page.version.published', v2.versionId],
    ]);
    const audienceNow = await t.app.inject({ url: base.replace('/versions', ''), headers: t.auth() });
    expect(audienceNow.json()).toMatchObject({
      audienceId: audience.audienceId,
      publishedVersion: { versionId: v2.versionId },
    });
  });

  it('cancels unpublished versions only; a refused change records no event', async () => {
    const { base } = await setup();
    const v1 = (await post(base)).json();
    const cancelled = (await post(`${base}/${v1.versionId}/cancel`)).json();
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledAt: expect.any(String) });
    const before = (await eventsOf(t.tenant.tenantId)).length;
    expectApiError(await post(`${base}/${v1.versionId}/cancel`), 'CONFLICT');
    expectApiError(await post(`${base}/${v1.versionId}/publish`), 'CONFLICT');
    expect(await eventsOf(t.tenant.tenantId)).toHaveLength(before);
    expect((await eventsOf(t.tenant.tenantId)).at(-1)?.type).toBe('page.version.cancelled');
  });

  it('answers 409 for versions of an archived audience and 404 for unknown or misplaced versions', async () => {
    const { page, audience, base } = await setup();
    const v1 = (await post(base)).json();
    const other = await t.seed.audience(t.tenant, page.pageId);
    const otherBase = `/v0/pages/${page.pageId}/audiences/${other.audienceId}/versions`;
    expectApiError(
      await t.app.inject({ url: `${otherBase}/${v1.versionId}`, headers: t.auth() }),
      'NOT_FOUND',
    );
    expectApiError(await t.app.inject({ url: `${base}/version_nope`, headers: t.auth() }), 'NOT_FOUND');
    await post(`/v0/pages/${page.pageId}/audiences/${audience.audienceId}/archive`);
    expectApiError(await post(base), 'CONFLICT');
    expectApiError(await post(`${base}/${v1.versionId}/publish`), 'CONFLICT');
  });

  it('numbers concurrent versions 1..n without gaps or duplicates, and counts concurrent audiences exactly', async () => {
    const { page, base } = await setup();
    const created = await Promise.all(Array.from({ length: 8 }, () => post(base)));
    expect(created.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    const numbers = created.map((r) => r.json().versionNumber as number).sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await Promise.all(Array.from({ length: 8 }, () => post(`/v0/pages/${page.pageId}/audiences`)));
    const list = (
      await t.app.inject({ url: `/v0/pages/${page.pageId}/audiences?limit=100`, headers: t.auth() })
    ).json();
    expect(list.totalCount).toBe(9);
    expect(list.items).toHaveLength(9);
  });

  itEnforcesAuth(
    t,
    async () => {
      const { base } = await setup();
      return { method: 'POST', url: base, headers: t.auth(), payload: {} };
    },
    { write: true, hasIds: true },
  );
  for (const action of ['', '/publish', '/cancel']) {
    itEnforcesAuth(
      t,
      async () => {
        const { base } = await setup();
        const v = (await post(base)).json();
        return action
          ? { method: 'POST', url: `${base}/${v.versionId}${action}`, headers: t.auth(), payload: {} }
          : { method: 'GET', url: `${base}/${v.versionId}`, headers: t.auth() };
      },
      { write: action !== '', hasIds: true },
    );
  }
});
