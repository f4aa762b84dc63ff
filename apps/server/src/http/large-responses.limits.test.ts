import { type ClientRequest, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestTenant } from '../test/seed.js';
import { query } from '../test/sql.js';
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

/** The port of the test app, listening from the first test that asks on. */
async function listening(): Promise<number> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

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

/** Fills `tenant`'s line of large responses with reads of `path`: one streaming, three waiting. */
async function fillLine(port: number, path: string, tenant: TestTenant): Promise<void> {
  await startRead(port, path, tenant.apiKey);
  for (let i = 0; i < 3; i += 1) void startRead(port, path, tenant.apiKey);
  await expect.poll(() => bandwidth.inLine(tenant.tenantId), { timeout: 30_000 }).toBe(4);
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
    const port = await listening();

    const streaming = await startRead(port, path);
    expect(streaming.status).toBe(200);
    expect(streaming.first.startsWith('{"conversation":')).toBe(true);
    // Three more wait in line (their responses have not begun); the fifth is refused at once.
    const waiting = [0, 1, 2].map(() => startRead(port, path));
    await expect.poll(() => bandwidth.inLine(t.tenant.tenantId), { timeout: 30_000 }).toBe(4);
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

/** Reads a whole response: its status, headers and body. */
function readAll(port: number, path: string, apiKey?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ port, path, headers: t.auth(apiKey) }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
      open.push(req);
    },
  );
}

describe('a place in line is taken before the history is read', () => {
  it('so a read that waited its turn returns what was posted while it waited, and gives its place back', async () => {
    const path = await history(t.tenant, 5);
    const port = await listening();

    const streaming = startRead(port, path);
    expect((await streaming).status).toBe(200);
    const waiting = readAll(port, path);
    await expect.poll(() => bandwidth.inLine(t.tenant.tenantId), { timeout: 30_000 }).toBe(2);
    const posted = await t.app.inject({
      method: 'POST',
      url: path,
      headers: t.auth(),
      payload: { role: 'user', content: 'posted while the read waited' },
    });
    expect(posted.statusCode, posted.body).toBe(201);

    // The first reader goes away; the waiting read takes its turn and reads the history then.
    for (const req of open.splice(0, 1)) req.destroy();
    const read = await waiting;
    expect(read.status).toBe(200);
    const messages = JSON.parse(read.body).messages as Array<{ messageId: string }>;
    expect(messages).toHaveLength(6);
    expect(messages.at(-1)?.messageId).toBe(posted.json().messageId);
    await expect.poll(() => bandwidth.inLine(t.tenant.tenantId), { timeout: 30_000 }).toBe(0);
  });

  it('and a history measured large whose body turns out small gives its place back too', async () => {
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    const path = `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/messages`;
    // 290 one-letter messages: the database's measure (256 bytes of room per message) passes the
    // 64 KiB of an inline body, while the body itself (about 200 bytes a message) stays under it.
    for (let i = 0; i < 290; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: path,
        headers: t.auth(),
        payload: { role: 'user', content: 'x' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const port = await listening();
    for (let round = 0; round < 6; round += 1) {
      const read = await readAll(port, path);
      expect(read.status).toBe(200);
      expect(read.body.length).toBeLessThanOrEqual(64 * 1024);
      expect(read.headers['content-length']).toBe(String(Buffer.byteLength(read.body)));
    }
    // Six reads that reserved a place, more than the line holds: none kept it.
    expect(bandwidth.inLine(t.tenant.tenantId)).toBe(0);
  });
});

describe('publishing a message, which answers with the history', () => {
  it('streams a long history in the same line as reads: past the line it is 429 before anything is read', async () => {
    const tenant = await t.seed.tenant();
    const path = await history(tenant, 4);
    const posted = await t.app.inject({
      method: 'POST',
      url: path,
      headers: t.auth(tenant.apiKey),
      payload: { role: 'user', content: 'to publish' },
    });
    const publish = `${path}/${posted.json<{ messageId: string }>().messageId}/publish`;
    const port = await listening();

    const streamed = await t.app.inject({ method: 'POST', url: publish, headers: t.auth(tenant.apiKey) });
    expect(streamed.statusCode, streamed.body).toBe(200);
    expect(streamed.headers['content-length']).toBeUndefined();
    expect(streamed.json<{ messages: unknown[] }>().messages).toHaveLength(5);

    await fillLine(port, path, tenant);
    const refused = await t.app.inject({ method: 'POST', url: publish, headers: t.auth(tenant.apiKey) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toContain('large responses in progress');
  });

  it('past the line, publishes nothing: the 429 comes before the write', async () => {
    const tenant = await t.seed.tenant();
    const path = await history(tenant, 4);
    const post = async (content: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: path,
          headers: t.auth(tenant.apiKey),
          payload: { role: 'user', content },
        })
      ).json<{ messageId: string }>().messageId;
    const first = await post('published first');
    const second = await post('not to be published');
    const port = await listening();
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `${path}/${first}/publish`,
          headers: t.auth(tenant.apiKey),
        })
      ).statusCode,
    ).toBe(200);

    await fillLine(port, path, tenant);
    const refused = await t.app.inject({
      method: 'POST',
      url: `${path}/${second}/publish`,
      headers: t.auth(tenant.apiKey),
    });
    expect(refused.statusCode).toBe(429);

    const [conversation] = await query<{ published: string | null }>(
      t.database.db,
      'SELECT published_message_id AS published FROM conversations WHERE tenant_id = $1',
      [tenant.tenantId],
    );
    expect(conversation?.published).toBe(first);
  });
});

describe('a tenant whose line is full', () => {
  it('is refused a history read before the database is asked anything, even one of an audience that does not exist', async () => {
    const tenant = await t.seed.tenant();
    const path = await history(tenant, 4);
    const page = await t.seed.page(tenant);
    const missing = `/v0/pages/${page.pageId}/audiences/audience_00000000000000000000000000/messages`;
    expect((await t.app.inject({ url: missing, headers: t.auth(tenant.apiKey) })).statusCode).toBe(404);

    const port = await listening();
    await fillLine(port, path, tenant);
    const refused = await t.app.inject({ url: missing, headers: t.auth(tenant.apiKey) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 4, remaining: 0 } });
    // Its other reads are answered as ever.
    expect((await t.app.inject({ url: '/v0/pages', headers: t.auth(tenant.apiKey) })).statusCode).toBe(200);
  });
});
