import { AssetSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../app.js';
import { loadTestSettings } from '../../../config.js';
import { openDatabase } from '../../../db/database.js';
import { TenantShare } from '../../../db/tenant-share.js';
import { createAsset, getLink, putBytes } from '../../../test/asset-content.js';
import { expectApiError, itEnforcesAuth } from '../../../test/http-cases.js';
import { TEST_BASE_URL, useTestApp } from '../../../test/test-app.js';

const MAX = 64 * 1024;
// A tenant's share of the database: 2 units, and no queue, so going over is answered at once.
const share = new TenantShare({ concurrency: 2, queueMs: 0 });
const t = useTestApp({ env: { ASSET_MAX_BYTES: String(MAX) }, tenantShare: share });

const bytes = (n: number, seed = 1) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 7) % 256));

describe('PUT /v0/assets/{asset_id}/content', () => {
  it('stores the bytes and answers the Asset with signed links that serve them', async () => {
    const asset = await createAsset(t);
    const body = bytes(3000);
    const res = await putBytes(t, asset.assetId, body, { contentType: 'image/png' });
    expect(res.statusCode, res.body).toBe(200);
    const updated = AssetSchema.parse(res.json());
    expect(updated.downloadUrl).toMatch(
      new RegExp(
        `^${TEST_BASE_URL}/v0/assets/${asset.assetId}/download\\?tenant=${t.tenant.tenantId}&expires=\\d+&signature=[\\w-]{43}$`,
      ),
    );
    expect(updated.previewDownloadUrl).toContain(`/v0/assets/${asset.assetId}/preview/download?`);
    const got = await getLink(t, updated.downloadUrl);
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(body)).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': '3000',
      'cache-control': 'private',
      'accept-ranges': 'bytes',
    });
    expect(got.headers.etag).toMatch(/^"[\w-]{43}"$/);
  });

  it('serves the content as the preview until a preview is put, then each its own', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'full size', { contentType: 'text/plain' });
    expect((await getLink(t, asset.previewDownloadUrl)).body).toBe('full size');
    const res = await putBytes(t, asset.assetId, 'thumb', { kind: 'preview', contentType: 'image/webp' });
    expect(res.statusCode, res.body).toBe(200);
    const preview = await getLink(t, res.json().previewDownloadUrl);
    expect([preview.body, preview.headers['content-type']]).toEqual(['thumb', 'image/webp']);
    expect((await getLink(t, res.json().downloadUrl)).body).toBe('full size');
  });

  it('replaces the content: the link serves the new bytes, type and ETag', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'first', { contentType: 'text/plain' });
    const before = await getLink(t, asset.downloadUrl);
    await putBytes(t, asset.assetId, '{"second":true}', { contentType: 'application/json' });
    const after = await getLink(t, asset.downloadUrl);
    expect([after.body, after.headers['content-type']]).toEqual(['{"second":true}', 'application/json']);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('accepts bodies beyond the JSON routes’ 1 MiB limit, any type, and an empty body', async () => {
    const big = await createAsset(t);
    const body = bytes(MAX, 3);
    expect((await putBytes(t, big.assetId, body, { contentType: 'video/mp4' })).statusCode).toBe(200);
    expect((await getLink(t, big.downloadUrl)).rawPayload.equals(body)).toBe(true);
    const empty = await createAsset(t);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v0/assets/${empty.assetId}/content`,
      headers: t.auth(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const got = await getLink(t, empty.downloadUrl);
    expect([got.statusCode, got.headers['content-length'], got.headers['content-type']]).toEqual([
      200,
      '0',
      'application/octet-stream',
    ]);
  });

  it('answers 400 for a body over ASSET_MAX_BYTES, and keeps the old content', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'keep me');
    const res = await putBytes(t, asset.assetId, bytes(MAX + 1));
    expect(expectApiError(res, 'VALIDATION_ERROR').detail).toContain('ASSET_MAX_BYTES');
    expect(res.headers.connection).toBe('close');
    expect((await getLink(t, asset.downloadUrl)).body).toBe('keep me');
  });

  it('answers 400 for a Content-Type that is not a media type', async () => {
    const asset = await createAsset(t);
    for (const contentType of ['nonsense', `image/${'x'.repeat(300)}`]) {
      expectApiError(await putBytes(t, asset.assetId, 'x', { contentType }), 'VALIDATION_ERROR');
    }
  });

  it('answers 404 for unknown ids, ids shaped like paths, and another tenant’s asset', async () => {
    const other = await t.seed.tenant();
    const theirs = await createAsset(t, other);
    await putBytes(t, theirs.assetId, 'theirs', { tenant: other });
    for (const id of ['asset_nope', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', theirs.assetId]) {
      expectApiError(await putBytes(t, id, 'mine now'), 'NOT_FOUND');
    }
    expect((await getLink(t, theirs.downloadUrl)).body).toBe('theirs');
  });

  it.runIf(loadTestSettings().databaseUrl)(
    'serves the bytes from another server process sharing the PostgreSQL database',
    async () => {
      const asset = await createAsset(t);
      await putBytes(t, asset.assetId, 'stored by the first process');
      const database = await openDatabase({ databaseUrl: t.config.databaseUrl });
      const second = await buildApp({ config: t.config, database });
      try {
        const url = new URL(asset.downloadUrl);
        const res = await second.inject({ method: 'GET', url: url.pathname + url.search });
        expect([res.statusCode, res.body]).toEqual([200, 'stored by the first process']);
      } finally {
        await second.close();
        await database.close();
      }
    },
  );

  it('runs uploads and signed downloads in the tenant’s share of the database', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'stored');
    // The tenant's two units are held (as two slow statements would hold them).
    const held = await Promise.all([share.acquire(t.tenant.tenantId), share.acquire(t.tenant.tenantId)]);
    try {
      expectApiError(await putBytes(t, asset.assetId, 'refused'), 'RATE_LIMITED');
      const refused = await getLink(t, asset.downloadUrl);
      expectApiError(refused, 'RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      for (const release of held) release();
    }
    expect((await putBytes(t, asset.assetId, 'accepted')).statusCode).toBe(200);
    expect((await getLink(t, asset.downloadUrl)).body).toBe('accepted');
  });

  itEnforcesAuth(
    t,
    async () => {
      const asset = await createAsset(t);
      return {
        method: 'PUT',
        url: `/v0/assets/${asset.assetId}/preview`,
        headers: { ...t.auth(), 'content-type': 'image/png' },
        payload: Buffer.from('png'),
      };
    },
    { write: true, hasIds: true },
  );
});
