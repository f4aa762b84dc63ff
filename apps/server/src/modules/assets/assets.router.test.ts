import { type Asset, AssetSchema, type CreateAssetBody } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { send, walk } from '../../test/accounts.js';
import { isCitus } from '../../test/citus.js';
import { expectApiError, itEnforcesAuth } from '../../test/http-cases.js';
import { query } from '../../test/sql.js';
import { TEST_BASE_URL, useTestApp } from '../../test/test-app.js';
import { containsPattern } from './assets.repo.js';

const t = useTestApp();

async function asset(body: Partial<CreateAssetBody> = {}): Promise<Asset> {
  const res = await send(t, 'POST', '/v0/assets', {
    name: 'Logo',
    data: { type: 'logo', fileId: 'file_1' },
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json();
}

async function trashed(name: string, type: CreateAssetBody['data']['type'] = 'image'): Promise<Asset> {
  const created = await asset({ name, data: { type, fileId: `file_${name}` } });
  return (await send(t, 'POST', `/v0/assets/${created.assetId}/trash`, {})).json();
}

const names = (page: { items: Asset[] }) => page.items.map((a) => a.name);

describe('POST /v0/assets', () => {
  it('creates an active asset (201) with signed download links under BASE_URL', async () => {
    const res = await send(t, 'POST', '/v0/assets', {
      name: 'Hero image',
      data: { type: 'image', fileId: 'file_abc' },
      purpose: 'Landing hero',
      tags: ['hero', 'spring'],
      hidden: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = AssetSchema.parse(res.json());
    expect(created).toMatchObject({
      tenantId: t.tenant.tenantId,
      name: 'Hero image',
      data: { type: 'image', fileId: 'file_abc' },
      purpose: 'Landing hero',
      tags: ['hero', 'spring'],
      hidden: true,
      lifecycleState: 'active',
      downloadUrl: expect.stringMatching(
        `^${TEST_BASE_URL}/v0/assets/${created.assetId}/download\\?tenant=${t.tenant.tenantId}&expires=\\d+&signature=`,
      ),
      previewDownloadUrl: expect.stringMatching(
        `^${TEST_BASE_URL}/v0/assets/${created.assetId}/preview/download\\?tenant=${t.tenant.tenantId}&expires=\\d+&signature=`,
      ),
    });
    expect(created).not.toHaveProperty('trashedAt');
    expect(created.assetId).toMatch(/^asset_[0-9a-z]{26}$/);
  });

  it("accepts a parent of the tenant, even trashed; an unknown or another tenant's parentAssetId is 404 and creates nothing", async () => {
    const parent = await asset({ name: 'Parent' });
    expect(await asset({ name: 'Child', parentAssetId: parent.assetId })).toMatchObject({
      parentAssetId: parent.assetId,
    });
    await send(t, 'POST', `/v0/assets/${parent.assetId}/trash`, {});
    expect((await asset({ name: 'Late child', parentAssetId: parent.assetId })).parentAssetId).toBe(
      parent.assetId,
    );

    const other = await t.seed.tenant();
    const foreign = await send(
      t,
      'POST',
      '/v0/assets',
      { name: 'Theirs', data: { type: 'logo', fileId: 'f' } },
      other,
    );
    expect(foreign.statusCode, foreign.body).toBe(201);
    const stored = () =>
      query(t.database.db, 'SELECT count(*) AS n FROM assets WHERE tenant_id = $1', [t.tenant.tenantId]);
    const before = await stored();
    const details = [];
    for (const parentAssetId of ['asset_0000000000000000000000000z', foreign.json().assetId as string]) {
      const res = await send(t, 'POST', '/v0/assets', {
        name: 'Orphan',
        data: { type: 'logo', fileId: 'f' },
        parentAssetId,
      });
      const error = expectApiError(res, 'NOT_FOUND');
      expect(error.detail).toContain('parentAssetId');
      details.push(String(error.detail).replace(parentAssetId, '<id>'));
    }
    // Another tenant's asset reads exactly like one that does not exist.
    expect(details[1]).toBe(details[0]);
    expect(await stored()).toEqual(before);
  });

  it('answers 400 for an unknown data.type and missing fields', async () => {
    for (const body of [
      { name: 'x', data: { type: 'pdf', fileId: 'f' } },
      { name: 'x' },
      { data: { type: 'image', fileId: 'f' } },
      { name: 'x', data: { type: 'image', fileId: 'f' }, tags: [''] },
    ]) {
      expectApiError(await send(t, 'POST', '/v0/assets', body), 'VALIDATION_ERROR');
    }
  });

  itEnforcesAuth(
    t,
    async () => ({
      method: 'POST',
      url: '/v0/assets',
      headers: t.auth(),
      payload: { name: 'n', data: { type: 'icon', fileId: 'f' } },
    }),
    { write: true, hasIds: false },
  );
});

describe('POST /v0/assets/{asset_id}/trash', () => {
  it('moves the asset to the trash once; again is 409', async () => {
    const created = await asset();
    const res = await send(t, 'POST', `/v0/assets/${created.assetId}/trash`, {});
    expect(res.statusCode).toBe(200);
    expect(AssetSchema.parse(res.json())).toMatchObject({
      lifecycleState: 'active',
      trashedAt: expect.any(String),
    });
    expectApiError(await send(t, 'POST', `/v0/assets/${created.assetId}/trash`, {}), 'CONFLICT');
    const list = (await send(t, 'GET', '/v0/assets/trash')).json();
    expect(list).toMatchObject({ totalCount: 1, items: [{ assetId: created.assetId }] });
  });

  it('answers 404 for an unknown asset and 400 for a body with members', async () => {
    expectApiError(await send(t, 'POST', '/v0/assets/asset_nope/trash', {}), 'NOT_FOUND');
    const created = await asset();
    expectApiError(
      await send(t, 'POST', `/v0/assets/${created.assetId}/trash`, { force: 1 }),
      'VALIDATION_ERROR',
    );
  });

  itEnforcesAuth(
    t,
    async () => {
      const created = await asset();
      return { method: 'POST', url: `/v0/assets/${created.assetId}/trash`, headers: t.auth(), payload: {} };
    },
    { write: true, hasIds: true },
  );
});

describe('GET /v0/assets/trash', () => {
  it('lists only trashed assets, most recently trashed first', async () => {
    const first = await asset({ name: 'first' });
    await asset({ name: 'never trashed' });
    const second = await asset({ name: 'second' });
    await send(t, 'POST', `/v0/assets/${second.assetId}/trash`, {});
    await send(t, 'POST', `/v0/assets/${first.assetId}/trash`, {});
    const page = (await send(t, 'GET', '/v0/assets/trash')).json();
    expect(names(page)).toEqual(['first', 'second']);
    expect(page.totalCount).toBe(2);
  });

  it('filters by assetType and by a case-insensitive name query, with exact totalCounts', async () => {
    await trashed('Summer Banner', 'image');
    await trashed('summer logo', 'logo');
    await trashed('Winter banner', 'image');
    await trashed('App icon', 'icon');
    const get = async (query: string) => (await send(t, 'GET', `/v0/assets/trash${query}`)).json();
    const byType = await get('?assetType=image');
    expect([names(byType), byType.totalCount]).toEqual([['Winter banner', 'Summer Banner'], 2]);
    const byQuery = await get('?query=SUMMER');
    expect([names(byQuery), byQuery.totalCount]).toEqual([['summer logo', 'Summer Banner'], 2]);
    const both = await get('?query=banner&assetType=image');
    expect([names(both), both.totalCount]).toEqual([['Winter banner', 'Summer Banner'], 2]);
    const inner = await get('?query=mer%20b');
    expect(names(inner)).toEqual(['Summer Banner']);
    expect((await get('?assetType=video')).totalCount).toBe(0);
  });

  it('reads an empty query as no filter and an empty cursor as the first page', async () => {
    await trashed('one');
    await trashed('two');
    const all = (await send(t, 'GET', '/v0/assets/trash')).json();
    const empty = await send(t, 'GET', '/v0/assets/trash?query=&cursor=');
    expect(empty.statusCode).toBe(200);
    expect([names(empty.json()), empty.json().totalCount]).toEqual([names(all), 2]);
  });

  it('matches %, _ and \\ in a query literally', async () => {
    await trashed('100% done');
    await trashed('1000 done');
    await trashed('snake_case');
    await trashed('snakeXcase');
    await trashed('back\\slash');
    const get = async (q: string) =>
      names((await send(t, 'GET', `/v0/assets/trash?query=${encodeURIComponent(q)}`)).json());
    expect(await get('0%')).toEqual(['100% done']);
    expect(await get('e_c')).toEqual(['snake_case']);
    expect(await get('k\\s')).toEqual(['back\\slash']);
    expect(containsPattern('a%_\\')).toBe('%a\\%\\_\\\\%');
  });

  it('walks the trash page by page, with and without filters', async () => {
    for (let i = 0; i < 5; i += 1) await trashed(`walk ${i}`, i % 2 === 0 ? 'video' : 'icon');
    const all = await walk<Asset>(t, '/v0/assets/trash', 2);
    expect(names(all)).toEqual(['walk 4', 'walk 3', 'walk 2', 'walk 1', 'walk 0']);
    expect(new Set(all.totals)).toEqual(new Set([5]));
    const videos = await walk<Asset>(t, '/v0/assets/trash?assetType=video&query=WALK', 1);
    expect(names(videos)).toEqual(['walk 4', 'walk 2', 'walk 0']);
    expect(new Set(videos.totals)).toEqual(new Set([3]));
    const cursor = encodeURIComponent((await send(t, 'GET', '/v0/assets/trash?limit=1')).json().nextCursor);
    expectApiError(
      await send(t, 'GET', `/v0/assets/trash?assetType=icon&cursor=${cursor}`),
      'VALIDATION_ERROR',
    );
  });

  it('answers 400 for an unknown assetType, a query over 200 characters and unknown parameters', async () => {
    for (const query of ['?assetType=pdf', '?type=image', `?query=${'x'.repeat(201)}`]) {
      expectApiError(await send(t, 'GET', `/v0/assets/trash${query}`), 'VALIDATION_ERROR');
    }
  });

  it("never shows another tenant's trash", async () => {
    const other = await t.seed.tenant();
    const theirs = await send(
      t,
      'POST',
      '/v0/assets',
      { name: 'theirs', data: { type: 'logo', fileId: 'f' } },
      other,
    );
    await send(t, 'POST', `/v0/assets/${theirs.json().assetId}/trash`, {}, other);
    expect((await send(t, 'GET', '/v0/assets/trash?query=theirs')).json()).toMatchObject({
      items: [],
      totalCount: 0,
    });
    expect((await send(t, 'GET', '/v0/assets/trash')).json()).toMatchObject({ items: [], totalCount: 0 });
  });

  it('serves the name query from the trigram index', async (context) => {
    if (await isCitus(t.database.db))
      context.skip('a plan of one PostgreSQL: a cluster plans on its workers');
    // Planner costs on a near-empty table prefer any index; hide the keyset ones and the primary
    // key, which lead with tenant_id too (DDL is transactional, the transaction is rolled back), so
    // the plan shows what serves ILIKE.
    let plan = '';
    await t.database.db
      .transaction(async (tx) => {
        await query(tx, 'SET LOCAL enable_seqscan = off');
        await query(tx, 'DROP INDEX assets_trash_idx');
        await query(tx, 'DROP INDEX assets_trash_type_idx');
        await query(tx, 'ALTER TABLE assets DROP CONSTRAINT assets_pkey');
        const rows = await query(
          tx,
          `EXPLAIN SELECT id FROM assets WHERE tenant_id = 'tenant_x' AND trashed_at IS NOT NULL
              AND deleted_at IS NULL AND name ILIKE '%banner%'`,
        );
        plan = JSON.stringify(rows);
        throw new Error('rollback');
      })
      .catch((err: Error) => {
        if (err.message !== 'rollback') throw err;
      });
    expect(plan).toContain('assets_trash_name_trgm_idx');
    expect(plan).toMatch(/Index Cond: .*name ~~\*/);
  });

  itEnforcesAuth(
    t,
    async () => ({ method: 'GET', url: '/v0/assets/trash?assetType=logo', headers: t.auth() }),
    {
      write: false,
      hasIds: false,
    },
  );
});
