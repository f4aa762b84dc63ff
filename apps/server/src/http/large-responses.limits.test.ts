import { type ClientRequest, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestTenant } from '../test/seed.js';
import { useTestApp } from '../test/test-app.js';
import { TenantBandwidth } from './tenant-bandwidth.js';

// A small share (64 KiB/s, 128 KiB at once): a history of 500 KB streams for seconds.
const bandwidth = new TenantBandwidth({
  bytesPerSecond: 64 * 1024,
  burstBytes: 128 * 1024,
  streams: 1,
  waiting: 3,
});
const t = useTestApp({ tenantBandwidth: bandwidth });
const open: ClientRequest[] = [];
afterEach(() => {
  for (const req of open.splice(0)) req.destroy();
});

/** Starts a read; resolves with its status and first body chunk once the response begins. */
function startRead(port: number, path: string, apiKey?: string) {
  return new Promise<{ status: number; first: string }>((resolve, reject) => {
    const req = request({ port, path, headers: t.auth(apiKey) }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (chunk: string) => resolve({ status: res.statusCode ?? 0, first: chunk }));
    });
    // The test's end destroys what is still open: that is no failure.
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
    open.push(req);
  });
}

/** A conversation of `messages` messages of 100 KB; the path of its history. */
async function history(tenant: TestTenant, messages: number): Promise<string> {
  const page = await t.seed.page(tenant);
  const audience = await t.seed.audience(tenant, page.pageId);
  const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
  for (let i = 0; i < messages; i += 1) {
    const res = await t.app.inject({
      method: 'POST',
      url: path,
      headers: t.auth(tenant.apiKey),
      payload: { role: 'user', content: 'x'.repeat(100_000) },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return path;
}

describe("a tenant's share of large responses", () => {
  it('streams one of its large reads at a time with three in line, refuses a fifth with 429, and leaves other tenants alone', async () => {
    const path = await history(t.tenant, 5);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;

    const streaming = await startRead(port, path);
    expect(streaming.status).toBe(200);
    expect(streaming.first.startsWith('{"conversation":')).toBe(true);
    // Three more wait in line (their responses have not begun); the fifth is refused at once.
    const waiting = [0, 1, 2].map(() => startRead(port, path));
    await expect.poll(() => bandwidth.inLine(t.tenant.tenantId)).toBe(4);
    const refused = await t.app.inject({ url: path, headers: t.auth() });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 4, remaining: 0 } });
    expect(refused.json().detail).toContain('large responses in progress');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(
      await Promise.race([...waiting, new Promise((resolve) => setImmediate(() => resolve('none')))]),
    ).toBe('none');

    // Another tenant's large read streams at once, and its small reads are answered as ever.
    const other = await t.seed.tenant();
    const otherPath = await history(other, 2);
    expect((await startRead(port, otherPath, other.apiKey)).status).toBe(200);
    const list = await t.app.inject({ url: '/v0/pages', headers: t.auth(other.apiKey) });
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toHaveLength(1);
  });
});
