import type { Asset } from '@customer-api/contract';
import type { LightMyRequestResponse } from 'fastify';
import type { TestTenant } from './seed.js';
import type { TestApp } from './test-app.js';

/** Creates an asset of the test's tenant (or `tenant`). */
export async function createAsset(t: TestApp, tenant: TestTenant = t.tenant): Promise<Asset> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v0/assets',
    headers: tenant.auth(),
    payload: { name: 'Logo', data: { type: 'logo', fileId: 'file_1' } },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json();
}

/** `PUT /v0/assets/{id}/{kind}` with raw bytes. */
export function putBytes(
  t: TestApp,
  assetId: string,
  body: Buffer | string | NodeJS.ReadableStream,
  options: {
    kind?: 'content' | 'preview';
    contentType?: string;
    tenant?: TestTenant;
    headers?: Record<string, string>;
  } = {},
): Promise<LightMyRequestResponse> {
  const tenant = options.tenant ?? t.tenant;
  return t.app.inject({
    method: 'PUT',
    url: `/v0/assets/${assetId}/${options.kind ?? 'content'}`,
    headers: {
      ...tenant.auth(),
      'content-type': options.contentType ?? 'application/octet-stream',
      ...options.headers,
    },
    payload: body,
  });
}

/** GETs a download link handed out by the API (no key), with extra request headers. */
export function getLink(
  t: TestApp,
  link: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const url = new URL(link);
  return t.app.inject({ method: 'GET', url: url.pathname + url.search, headers });
}
