import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import { getEtag } from './core/conditional.js';
import {
  NotFoundError,
  PreconditionFailedError,
  ServiceUnavailableError,
  ValidationError,
} from './core/errors.js';
import { getRequestId } from './core/request.js';
import { apiError, type FakeServer, json, startServer } from './test/fake-server.js';

const ASSET = {
  assetId: 'asset_1',
  tenantId: 'tenant_1',
  name: 'Logo',
  tags: [],
  hidden: false,
  data: { type: 'logo', fileId: 'f' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  lifecycleState: 'active',
  downloadUrl: 'http://api/v0/assets/asset_1/download?tenant=tenant_1&expires=1&signature=s',
  previewDownloadUrl: 'http://api/v0/assets/asset_1/preview/download?tenant=tenant_1&expires=1&signature=s',
};

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Parameters<typeof startServer>[0], maxRetries = 0) {
  server = await startServer(handler);
  const client = createClient({
    baseUrl: server.url,
    apiKey: 'key_test',
    maxRetries,
    backoff: { initialDelayMs: 1, maxDelayMs: 1 },
  });
  return { server, client };
}

describe('putAssetContent / putAssetPreview', () => {
  it('PUTs the raw bytes with their Content-Type and resolves to the Asset', async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 200, ASSET));
    const asset = await client.putAssetContent('asset_1', new Uint8Array([1, 2, 3]), {
      contentType: 'image/png',
    });
    expect(asset.downloadUrl).toBe(ASSET.downloadUrl);
    expect(getRequestId(asset)).toBe('req_200');
    expect(s.requests[0]).toMatchObject({ method: 'PUT', url: '/v0/assets/asset_1/content' });
    expect(s.requests[0]?.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': '3',
      'x-api-key': 'key_test',
    });
    expect(s.requests[0]?.body).toBe('\u0001\u0002\u0003');
  });

  it("sends ifMatch, gives the new bytes' ETag, and never retries a 412", async () => {
    const tag = `"${'a'.repeat(43)}"`;
    let calls = 0;
    const { server: s, client } = await serve((req, res) => {
      calls += 1;
      if (req.headers['if-match'] === '"stale"') apiError(res, 'PRECONDITION_FAILED');
      else json(res, 200, ASSET, { etag: tag });
    }, 2);
    const asset = await client.putAssetContent('asset_1', new Uint8Array([1]), { ifMatch: '"fresh"' });
    expect(getEtag(asset)).toBe(tag);
    expect(s.requests[0]?.headers['if-match']).toBe('"fresh"');
    await expect(
      client.putAssetContent('asset_1', new Uint8Array([1]), { ifMatch: '"stale"' }),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(calls).toBe(2);
    await expect(client.putAssetContent('asset_1', new Uint8Array([1]), { ifMatch: ' ' })).rejects.toThrow(
      /ifMatch must be an ETag/,
    );
  });

  it('streams a Node Readable and a web ReadableStream (chunked, not buffered) to the preview', async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 200, ASSET));
    await client.putAssetPreview('asset_1', Readable.from([Buffer.from('ab'), Buffer.from('cd')]));
    const web = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('web'));
        controller.close();
      },
    });
    await client.putAssetPreview('asset_1', web, { contentType: 'text/plain' });
    expect(
      s.requests.map((r) => [r.url, r.body, r.headers['transfer-encoding'], r.headers['content-type']]),
    ).toEqual([
      ['/v0/assets/asset_1/preview', 'abcd', 'chunked', 'application/octet-stream'],
      ['/v0/assets/asset_1/preview', 'web', 'chunked', 'text/plain'],
    ]);
  });

  it("uses a Blob's own type unless contentType is given", async () => {
    const { server: s, client } = await serve((_req, res) => json(res, 200, ASSET));
    await client.putAssetContent('asset_1', new Blob(['<svg/>'], { type: 'image/svg+xml' }));
    expect(s.requests[0]?.headers['content-type']).toBe('image/svg+xml');
  });

  it('maps errors like every other method: 400 ValidationError, 404 NotFoundError', async () => {
    const { client } = await serve((_req, res, i) =>
      apiError(res, i === 0 ? 'VALIDATION_ERROR' : 'NOT_FOUND'),
    );
    await expect(client.putAssetContent('asset_1', new Uint8Array(1))).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(client.putAssetContent('asset_1', new Uint8Array(1))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('retries a byte array after 503, but sends a stream once', async () => {
    const { server: s, client } = await serve(
      (_req, res, i) => (i === 0 || i === 2 ? apiError(res, 'SERVICE_UNAVAILABLE') : json(res, 200, ASSET)),
      2,
    );
    await client.putAssetContent('asset_1', new Uint8Array([9]));
    expect(s.requests).toHaveLength(2);
    await expect(client.putAssetContent('asset_1', Readable.from([Buffer.from('x')]))).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(s.requests).toHaveLength(3);
  });
});
