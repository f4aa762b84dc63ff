import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createClient, ValidationError } from '@customer-api/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset, getLink, putBytes } from '../../../test/asset-content.js';
import { useTestApp } from '../../../test/test-app.js';
import { openAssetStore } from './open-store.js';
import type { AssetStore } from './store.js';

// Over two 1 MiB chunks of the PostgreSQL store, so ranges cross chunk boundaries.
const MAX = 2.5 * 1024 * 1024;
const events = new EventEmitter();
let store: AssetStore;

/** The app's real store, reporting what each upload does (the test waits on these events). */
function observed(inner: AssetStore): AssetStore {
  return {
    put: async (tenantId, blobId, body) => {
      async function* tap() {
        for await (const piece of body) {
          events.emit('piece', blobId);
          yield piece;
        }
      }
      try {
        await inner.put(tenantId, blobId, tap());
      } catch (err) {
        events.emit('failed', blobId);
        throw err;
      }
    },
    get: (tenantId, blobId, start, end) => inner.get(tenantId, blobId, start, end),
    stat: (tenantId, blobId) => inner.stat(tenantId, blobId),
    delete: (tenantId, blobId) => inner.delete(tenantId, blobId),
    close: async () => inner.close?.(),
  };
}

const t = useTestApp({
  env: { ASSET_MAX_BYTES: String(MAX) },
  assetStore: async (database, config) => {
    store = observed(await openAssetStore(database, config));
    return store;
  },
});
let port: number;

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t.app.close());

/** Starts a raw PUT of `assetId`'s content; the caller writes the body. */
function startPut(assetId: string, headers: Record<string, string> = {}) {
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'PUT',
    path: `/v0/assets/${assetId}/content`,
    headers: { ...t.auth(), 'content-type': 'application/octet-stream', ...headers },
  });
  request.on('error', () => {});
  const response = once(request, 'response').then(async (args) => {
    const res = args[0] as http.IncomingMessage;
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode, body: Buffer.concat(chunks).toString() };
  });
  // An aborted request never answers; only tests that expect an answer await it.
  response.catch(() => undefined);
  return { request, response };
}

describe('hostile uploads over HTTP', () => {
  it('stores nothing of an upload whose client aborts half-way; the old content stays', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'old content');
    const firstPiece = once(events, 'piece');
    const failed = once(events, 'failed');
    const { request } = startPut(asset.assetId, { 'content-length': String(MAX) });
    request.write(Buffer.alloc(64 * 1024, 1));
    const [blobId] = await firstPiece;
    request.destroy();
    expect(await failed).toEqual([blobId]);
    expect(await store.stat(t.tenant.tenantId, blobId)).toBeUndefined();
    expect((await getLink(t, asset.downloadUrl)).body).toBe('old content');
  });

  it('refuses a chunked body (no Content-Length) once it passes ASSET_MAX_BYTES, storing nothing', async () => {
    const asset = await createAsset(t);
    await putBytes(t, asset.assetId, 'old content');
    const failed = once(events, 'failed');
    const { request, response } = startPut(asset.assetId);
    for (let sent = 0; sent <= MAX && !request.destroyed; sent += 256 * 1024)
      request.write(Buffer.alloc(256 * 1024, 2));
    request.end();
    const [blobId] = await failed;
    const res = await response;
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await store.stat(t.tenant.tenantId, blobId)).toBeUndefined();
    expect((await getLink(t, asset.downloadUrl)).body).toBe('old content');
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const asset = await createAsset(t);
    const { request, response } = startPut(asset.assetId, { 'content-length': String(MAX + 1) });
    request.write(Buffer.alloc(1024));
    const res = await response;
    request.destroy();
    expect(res.status).toBe(400);
    expect((await getLink(t, asset.downloadUrl)).statusCode).toBe(404);
  });

  it('streams a multi-chunk download with ranges across chunk boundaries', async () => {
    const asset = await createAsset(t);
    const body = Buffer.from(Array.from({ length: MAX }, (_, i) => i % 251));
    expect((await putBytes(t, asset.assetId, body)).statusCode).toBe(200);
    const url = new URL(asset.downloadUrl);
    const res = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, {
      headers: { range: `bytes=1000-${MAX - 1000}` },
    });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 1000-${MAX - 1000}/${MAX}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(body.subarray(1000, MAX - 999))).toBe(true);
    const whole = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(body)).toBe(true);
  });

  it('takes a streamed upload from the client and refuses an oversized one with ValidationError', async () => {
    const asset = await createAsset(t);
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: t.tenant.apiKey });
    const pieces = Array.from({ length: 10 }, (_, i) => Buffer.alloc(200 * 1024, i));
    const updated = await client.putAssetContent(asset.assetId, Readable.from(pieces), {
      contentType: 'video/mp4',
    });
    const url = new URL(updated.downloadUrl);
    const res = await fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.concat(pieces))).toBe(true);
    const tooBig = Readable.from([...pieces, ...pieces]);
    await expect(client.putAssetPreview(asset.assetId, tooBig)).rejects.toBeInstanceOf(ValidationError);
    await client.close();
  });
});
