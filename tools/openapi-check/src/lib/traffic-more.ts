import type { Call, Recorder } from './exchanges.js';
import type { Keys } from './processes.js';
import { type Canonical, str } from './traffic-call.js';

type Json = Record<string, unknown>;

/**
 * Assets: create, upload content and preview, the signed downloads (whole, a range, not modified,
 * a range past the end, a forged link, nothing uploaded yet), trash and the trash list.
 */
export async function driveAssets(rec: Recorder, keys: Keys, base: string, canonical: Canonical) {
  const key = keys.owner;
  const call = async (c: Omit<Call, 'key'>) => {
    const full: Call = { ...c, key };
    canonical.set(c.operation, full);
    return rec.send(full);
  };
  const local = (url: string) => url.slice(base.length);
  const asset = (
    await call({
      operation: 'createAsset',
      method: 'POST',
      path: '/v0/assets',
      expect: 201,
      body: { name: 'Logo', data: { type: 'logo', fileId: 'file_logo' }, tags: ['brand'] },
    })
  ).body;
  const empty = (
    await rec.send({
      operation: 'createAsset',
      method: 'POST',
      path: '/v0/assets',
      expect: 201,
      key,
      body: { name: 'Empty', data: { type: 'image', fileId: 'file_empty' } },
    })
  ).body;
  await rec.send({
    operation: 'downloadAssetContent',
    method: 'GET',
    path: local(str(empty, 'downloadUrl')),
    expect: 404,
  });
  await rec.send({
    operation: 'downloadAssetPreview',
    method: 'GET',
    path: local(str(empty, 'previewDownloadUrl')),
    expect: 404,
  });
  const id = str(asset, 'assetId');
  const bytes = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>');
  const octets = { 'content-type': 'application/octet-stream' };
  await call({
    operation: 'putAssetContent',
    method: 'PUT',
    path: `/v0/assets/${id}/content`,
    expect: 200,
    raw: bytes,
    headers: octets,
  });
  const stored = (
    await call({
      operation: 'putAssetPreview',
      method: 'PUT',
      path: `/v0/assets/${id}/preview`,
      expect: 200,
      raw: bytes,
      headers: octets,
    })
  ).body;
  for (const [operation, field] of [
    ['downloadAssetContent', 'downloadUrl'],
    ['downloadAssetPreview', 'previewDownloadUrl'],
  ] as const) {
    const path = local(str(stored, field));
    const whole = await rec.send({ operation, method: 'GET', path, expect: 200 });
    const etag = whole.headers.get('etag') ?? '';
    await rec.send({ operation, method: 'GET', path, expect: 206, headers: { range: 'bytes=0-3' } });
    await rec.send({ operation, method: 'GET', path, expect: 304, headers: { 'if-none-match': etag } });
    await rec.send({ operation, method: 'GET', path, expect: 416, headers: { range: 'bytes=100000-' } });
    await rec.send({
      operation,
      method: 'GET',
      path: path.replace(/signature=[^&]+/, 'signature=forged'),
      expect: 403,
    });
  }
  await call({
    operation: 'trashAsset',
    method: 'POST',
    path: `/v0/assets/${id}/trash`,
    expect: 200,
    body: {},
  });
  await call({ operation: 'listTrashedAssets', method: 'GET', path: '/v0/assets/trash', expect: 200 });
}

/** After the deliveries: the delivery log, a redelivery, a recovery, and the subscriptions deleted. */
export async function driveDeliveries(
  rec: Recorder,
  keys: Keys,
  canonical: Canonical,
  subs: string[],
  since: string,
) {
  const key = keys.owner;
  const call = async (c: Omit<Call, 'key'>) => {
    const full: Call = { ...c, key };
    canonical.set(c.operation, full);
    return (await rec.send(full)).body;
  };
  const w = `/v0/webhook_subscriptions/${subs[0]}`;
  const log = await call({
    operation: 'listWebhookDeliveries',
    method: 'GET',
    path: `${w}/deliveries`,
    expect: 200,
  });
  const first = ((log as { items: Json[] }).items[0] ?? {}) as Json;
  await call({
    operation: 'redeliverWebhookDelivery',
    method: 'POST',
    path: `${w}/deliveries/${str(first, 'deliveryId')}/redeliver`,
    expect: 202,
    body: {},
  });
  await call({
    operation: 'recoverWebhookDeliveries',
    method: 'POST',
    path: `${w}/recover`,
    expect: 202,
    body: { since },
  });
  for (const sub of subs) {
    await call({
      operation: 'deleteWebhookSubscription',
      method: 'DELETE',
      path: `/v0/webhook_subscriptions/${sub}`,
      expect: 200,
    });
  }
}
