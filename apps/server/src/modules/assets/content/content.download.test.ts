import { describe, expect, it } from 'vitest';
import { CURSOR_SECRET_SETTING } from '../../../db/migrate.js';
import { readSetting } from '../../../db/settings.js';
import { createAsset, getLink, putBytes } from '../../../test/asset-content.js';
import { isCitus } from '../../../test/citus.js';
import { expectApiError } from '../../../test/http-cases.js';
import { query, scansOf, statementOf } from '../../../test/sql.js';
import { TEST_BASE_URL, useTestApp } from '../../../test/test-app.js';
import { findServedFile } from './content.repo.js';
import { DownloadLinks } from './links.js';

let now = Date.parse('2030-01-01T00:00:00Z');
const t = useTestApp({ clock: () => new Date(now), env: { ASSET_URL_TTL_S: '600' } });
const TEXT = 'abcdefghijklmnopqrstuvwxyz';

async function uploaded(body = TEXT) {
  const asset = await createAsset(t);
  const res = await putBytes(t, asset.assetId, body, { contentType: 'text/plain; charset=utf-8' });
  if (res.statusCode !== 200) throw new Error(res.body);
  return asset;
}

const withParams = (link: string, change: (params: URLSearchParams) => void) => {
  const url = new URL(link);
  change(url.searchParams);
  return url.toString();
};

describe('GET /v0/assets/{asset_id}/download (signed link)', () => {
  it('answers 404 NOT_FOUND until content is put', async () => {
    const asset = await createAsset(t);
    expectApiError(await getLink(t, asset.downloadUrl), 'NOT_FOUND');
    expectApiError(await getLink(t, asset.previewDownloadUrl), 'NOT_FOUND');
  });

  it('answers 403 FORBIDDEN to forged, tampered, missing and other-asset signatures and tenants', async () => {
    const asset = await uploaded();
    const other = await uploaded('other');
    const path = (link: string) => new URL(link).pathname;
    const otherQuery = new URL(other.downloadUrl).search;
    const forged = [
      withParams(asset.downloadUrl, (p) => p.set('signature', 'A'.repeat(43))),
      withParams(asset.downloadUrl, (p) => p.set('expires', String(Number(p.get('expires')) + 3600))),
      withParams(asset.downloadUrl, (p) => p.delete('signature')),
      withParams(asset.downloadUrl, (p) => p.delete('expires')),
      withParams(asset.downloadUrl, (p) => p.delete('tenant')),
      withParams(asset.downloadUrl, (p) => p.set('tenant', '')),
      withParams(asset.downloadUrl, (p) => p.set('tenant', `${p.get('tenant')}x`)),
      withParams(asset.downloadUrl, (p) => p.set('tenant', 't'.repeat(10_000))),
      withParams(asset.downloadUrl, (p) => p.append('tenant', p.get('tenant') ?? '')),
      `${TEST_BASE_URL}${path(asset.downloadUrl)}${otherQuery}`,
      // The content's signature does not open the preview, nor the other way round.
      `${TEST_BASE_URL}${path(asset.previewDownloadUrl)}${new URL(asset.downloadUrl).search}`,
      `${TEST_BASE_URL}${path(asset.downloadUrl)}${new URL(asset.previewDownloadUrl).search}`,
    ];
    for (const link of forged) {
      expect(expectApiError(await getLink(t, link), 'FORBIDDEN').detail).toContain('not valid');
    }
    expect((await getLink(t, asset.downloadUrl)).body).toBe(TEXT);
  });

  it('refuses a link whose tenant is changed to another tenant’s id', async () => {
    const asset = await uploaded();
    const other = await t.seed.tenant();
    const theirs = await createAsset(t, other);
    await putBytes(t, theirs.assetId, 'theirs', { tenant: other });
    expect(new URL(asset.downloadUrl).searchParams.get('tenant')).toBe(t.tenant.tenantId);
    const repointed = [
      withParams(asset.downloadUrl, (p) => p.set('tenant', other.tenantId)),
      withParams(asset.previewDownloadUrl, (p) => p.set('tenant', other.tenantId)),
      withParams(theirs.downloadUrl, (p) => p.set('tenant', t.tenant.tenantId)),
    ];
    for (const link of repointed) {
      expect(expectApiError(await getLink(t, link), 'FORBIDDEN').detail).toContain('not valid');
    }
    expect((await getLink(t, asset.downloadUrl)).body).toBe(TEXT);
    expect((await getLink(t, theirs.downloadUrl)).body).toBe('theirs');
  });

  it('answers 404 to a valid link naming a tenant the asset is not of', async () => {
    const asset = await uploaded();
    const other = await t.seed.tenant();
    const secret = await readSetting(t.database.db, CURSOR_SECRET_SETTING);
    const links = DownloadLinks.forConfig(secret ?? '', t.config).at(new Date(now));
    expectApiError(await getLink(t, links(other.tenantId, asset.assetId).downloadUrl), 'NOT_FOUND');
  });

  it('answers 403 once the link has expired (ASSET_URL_TTL_S), and a fresh link works', async () => {
    const asset = await uploaded();
    now += 601_000;
    expect(expectApiError(await getLink(t, asset.downloadUrl), 'FORBIDDEN').detail).toContain('expired');
    const fresh = await t.app.inject({ method: 'GET', url: '/v0/assets/trash', headers: t.auth() });
    expect(fresh.statusCode).toBe(200);
    const put = await putBytes(t, asset.assetId, TEXT);
    expect((await getLink(t, put.json().downloadUrl)).body).toBe(TEXT);
  });

  it('gives every asset of one response the same expiry', async () => {
    for (const name of ['a', 'b', 'c']) {
      const asset = await createAsset(t);
      await t.app.inject({
        method: 'POST',
        url: `/v0/assets/${asset.assetId}/trash`,
        headers: t.auth(),
        payload: {},
      });
      void name;
    }
    const page = (await t.app.inject({ method: 'GET', url: '/v0/assets/trash', headers: t.auth() })).json();
    const expiries = new Set(
      page.items.flatMap((a: { downloadUrl: string; previewDownloadUrl: string }) =>
        [a.downloadUrl, a.previewDownloadUrl].map((l) => new URL(l).searchParams.get('expires')),
      ),
    );
    expect(expiries.size).toBe(1);
  });

  it('never opens an id shaped like a path, even with a valid signature for it', async () => {
    const secret = await readSetting(t.database.db, CURSOR_SECRET_SETTING);
    const links = DownloadLinks.forConfig(secret ?? '', t.config).at(new Date(now));
    for (const id of ['../../etc/passwd', '..', 'blob_00000000000000000000000000']) {
      expectApiError(await getLink(t, links(t.tenant.tenantId, id).downloadUrl), 'NOT_FOUND');
    }
  });

  it('honours Range: one range 206, suffix, open end, clamped end', async () => {
    const asset = await uploaded();
    const cases: Array<[string, string, string]> = [
      ['bytes=2-5', 'cdef', 'bytes 2-5/26'],
      ['bytes=-3', 'xyz', 'bytes 23-25/26'],
      ['bytes=-100', TEXT, 'bytes 0-25/26'],
      ['bytes=24-', 'yz', 'bytes 24-25/26'],
      ['bytes=20-999', 'uvwxyz', 'bytes 20-25/26'],
    ];
    for (const [range, body, contentRange] of cases) {
      const res = await getLink(t, asset.downloadUrl, { range });
      expect([res.statusCode, res.body, res.headers['content-range']], range).toEqual([
        206,
        body,
        contentRange,
      ]);
      expect(res.headers['content-length']).toBe(String(body.length));
    }
  });

  it('answers 416 for a range starting at or past the end, and the whole body for ranges it ignores', async () => {
    const asset = await uploaded();
    for (const range of ['bytes=26-', 'bytes=1000-2000', 'bytes=-0']) {
      const res = await getLink(t, asset.downloadUrl, { range });
      expect([res.statusCode, res.headers['content-range']], range).toEqual([416, 'bytes */26']);
    }
    for (const range of ['bytes=0-1,4-5', 'items=0-1', 'bytes=5-2', 'bytes=x-y', 'bytes=-']) {
      const res = await getLink(t, asset.downloadUrl, { range });
      expect([res.statusCode, res.body], range).toEqual([200, TEXT]);
    }
    const etag = (await getLink(t, asset.downloadUrl)).headers.etag as string;
    const stale = await getLink(t, asset.downloadUrl, { range: 'bytes=0-1', 'if-range': '"old"' });
    expect([stale.statusCode, stale.body]).toEqual([200, TEXT]);
    const current = await getLink(t, asset.downloadUrl, { range: 'bytes=0-1', 'if-range': etag });
    expect([current.statusCode, current.body]).toEqual([206, 'ab']);
  });

  it('answers HEAD with the headers of the GET and no body', async () => {
    const asset = await uploaded();
    const url = new URL(asset.downloadUrl);
    const res = await t.app.inject({ method: 'HEAD', url: url.pathname + url.search });
    expect([res.statusCode, res.headers['content-length'], res.headers['content-type'], res.body]).toEqual([
      200,
      '26',
      'text/plain; charset=utf-8',
      '',
    ]);
  });

  it('answers 304 to If-None-Match with the current ETag, and 200 once the content changed', async () => {
    const asset = await uploaded();
    const etag = (await getLink(t, asset.downloadUrl)).headers.etag as string;
    const cached = await getLink(t, asset.downloadUrl, { 'if-none-match': `"x", W/${etag}` });
    expect([cached.statusCode, cached.body, cached.headers.etag]).toEqual([304, '', etag]);
    await putBytes(t, asset.assetId, 'changed');
    const res = await getLink(t, asset.downloadUrl, { 'if-none-match': etag });
    expect([res.statusCode, res.body]).toEqual([200, 'changed']);
  });

  it('finds the file a link serves by the primary key, on the tenant the link names', async (context) => {
    if (await isCitus(t.database.db))
      context.skip('a plan of one PostgreSQL: a cluster plans on its workers');
    const sent = await statementOf(t.database.db, (db) =>
      findServedFile(db, t.tenant.tenantId, 'asset_x', 'preview'),
    );
    let plan: unknown;
    await t.database.db.transaction(async (tx) => {
      await query(tx, 'SET LOCAL enable_seqscan = off');
      plan = (await query(tx, `EXPLAIN (FORMAT JSON) ${sent.text}`, sent.values))[0];
    });
    expect(scansOf(plan, 'asset_files').map((s) => s.node)).not.toContain('Seq Scan');
    expect(JSON.stringify(plan)).toContain('"Index Name":"asset_files_pkey"');
  });

  it('serves uploaded HTML sandboxed and unsniffed, so it cannot act as the API’s origin', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, '<script>alert(1)</script>', { contentType: 'text/html' });
    const res = await getLink(t, asset.downloadUrl);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
