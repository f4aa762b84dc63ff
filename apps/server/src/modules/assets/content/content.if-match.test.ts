import { describe, expect, it } from 'vitest';
import { createAsset, getLink, putBytes } from '../../../test/asset-content.js';
import { expectApiError } from '../../../test/http-cases.js';
import { useTestApp } from '../../../test/test-app.js';

const t = useTestApp();

describe('If-Match on an upload', () => {
  it("answers the new bytes' ETag, the one their download sends", async () => {
    const asset = await createAsset(t);
    const res = await putBytes(t, asset.assetId, 'first', { contentType: 'text/plain' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toMatch(/^"[\w-]{43}"$/);
    expect((await getLink(t, asset.downloadUrl)).headers.etag).toBe(res.headers.etag);
  });

  it('stores with the current tag, and refuses a stale one with 412, keeping what is served', async () => {
    const asset = await createAsset(t);
    const first = await putBytes(t, asset.assetId, 'first', { contentType: 'text/plain' });
    const tag = String(first.headers.etag);
    const second = await putBytes(t, asset.assetId, 'second', { headers: { 'if-match': tag } });
    expect(second.statusCode).toBe(200);
    const stale = await putBytes(t, asset.assetId, 'third', { headers: { 'if-match': tag } });
    expect(expectApiError(stale, 'PRECONDITION_FAILED').detail).toMatch(/changed since it was read/);
    const served = await getLink(t, asset.downloadUrl);
    expect(served.body).toBe('second');
    expect(served.headers.etag).toBe(second.headers.etag);
  });

  it('takes * only while something is served, and compares a preview with what its link serves', async () => {
    const asset = await createAsset(t);
    expectApiError(
      await putBytes(t, asset.assetId, 'x', { headers: { 'if-match': '*' } }),
      'PRECONDITION_FAILED',
    );
    const content = await putBytes(t, asset.assetId, 'full', { headers: { 'if-match': '*' } });
    expectApiError(content, 'PRECONDITION_FAILED');
    const stored = await putBytes(t, asset.assetId, 'full');
    // Until a preview is put, the preview link serves the content: its tag is the content's.
    const preview = await putBytes(t, asset.assetId, 'thumb', {
      kind: 'preview',
      headers: { 'if-match': String(stored.headers.etag) },
    });
    expect(preview.statusCode).toBe(200);
    expect((await getLink(t, asset.previewDownloadUrl)).body).toBe('thumb');
  });

  it('lets one of two concurrent uploads with the same tag through', async () => {
    const asset = await createAsset(t);
    const tag = String((await putBytes(t, asset.assetId, 'base')).headers.etag);
    const results = await Promise.all(
      ['A', 'B'].map((body) => putBytes(t, asset.assetId, body, { headers: { 'if-match': tag } })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 412]);
    const winner = results.find((r) => r.statusCode === 200);
    expect((await getLink(t, asset.downloadUrl)).headers.etag).toBe(winner?.headers.etag);
  });
});
