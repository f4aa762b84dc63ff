import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetMessageSchema, PageSchema } from '@customer-api/contract';
import { freePort, SERVER_CLI, spawnTracked, type TrackedProcess } from '@customer-api/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { ensureDemo } from './cli/demo-data.js';
import { loadTestSettings } from './config.js';
import { testConfig } from './test/test-app.js';
import { createTestDatabase, type TestDatabase } from './test/test-database.js';

const settings = loadTestSettings();

interface Listing {
  totalCount: number;
  items: Array<Record<string, unknown>>;
}
const json = async (res: Response) => (await res.json()) as Listing;

describe('end to end over real HTTP', () => {
  let testDb: TestDatabase;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let base: string;

  beforeAll(async () => {
    testDb = await createTestDatabase(settings.databaseUrl);
    app = await buildApp({
      config: testConfig(testDb.url ? { DATABASE_URL: testDb.url } : {}),
      database: testDb.database,
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await testDb?.dispose();
  });

  it('first run creates the demo tenant, key and data once; the key lists the demo pages', async () => {
    const config = testConfig();
    const first = await ensureDemo(testDb.database, config);
    expect(first.apiKey).toMatch(/^cak_/);
    expect(await ensureDemo(testDb.database, config)).toEqual({ apiKey: undefined });

    const headers = { 'x-api-key': first.apiKey ?? '' };
    const res = await fetch(`${base}/v0/pages`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    const pages = await json(res);
    expect(pages.totalCount).toBe(3);
    const page = PageSchema.parse(pages.items[0]);
    expect(page.audiencesCount).toBe(2);

    const audiences = await json(await fetch(`${base}/v0/pages/${page.pageId}/audiences`, { headers }));
    const withConversation = audiences.items.find((a) => a.customName === 'Logistics leads');
    expect(withConversation).toMatchObject({
      publishedVersion: { versionNumber: 1 },
      latestVersion: { versionNumber: 2 },
    });
    const url = `${base}/v0/pages/${page.pageId}/audiences/${String(withConversation?.audienceId)}/messages`;
    const history = GetMessageSchema.parse(await (await fetch(url, { headers })).json());
    expect(history.messages).toHaveLength(2);
    expect(history.pendingChanges).toHaveLength(1);

    const restore = await fetch(`${base}/v0/pages/${page.pageId}/restore`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(restore.status).toBe(409);
    expect(await restore.json()).toMatchObject({
      code: 'CONFLICT',
      requestId: restore.headers.get('x-request-id'),
    });
  });
});

/** Runs `customer-api start`; `ready` resolves once it printed its banner, rejects if it exits first. */
function startCli(env: Record<string, string>): TrackedProcess & { ready: Promise<void> } {
  const proc = spawnTracked({
    command: process.execPath,
    args: [SERVER_CLI, 'start'],
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
  });
  const banner = proc.line(/Stop with Ctrl\+C/).then(() => undefined);
  const exited = proc.exited.then((code) => {
    throw new Error(`exited ${code}: ${proc.output()}`);
  });
  return { ...proc, ready: Promise.race([banner, exited]) };
}

describe.skipIf(!existsSync(SERVER_CLI) || settings.databaseUrl)(
  'pnpm start (built CLI, embedded database)',
  () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'customer-api-start-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('prints URL, key and curl examples on the first start only, and stops cleanly on SIGTERM', async () => {
      const port = await freePort();
      // vitest sets BASE_URL=/ in process.env (Vite convention); give the child a real one.
      const env = { DATA_DIR: join(dir, 'data'), PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` };
      const first = startCli(env);
      await first.ready;
      const key = /(cak_[A-Za-z0-9_-]+)/.exec(first.output())?.[1];
      expect(first.output()).toContain(`http://127.0.0.1:${port}`);
      expect(first.output()).toContain(`curl -H "x-api-key: ${key}" http://127.0.0.1:${port}/v0/pages`);
      const pages = await json(
        await fetch(`http://127.0.0.1:${port}/v0/pages`, { headers: { 'x-api-key': key ?? '' } }),
      );
      expect(pages.totalCount).toBe(3);

      // A second process on the same data directory fails at once instead of corrupting it.
      const clashPort = await freePort();
      const clash = startCli({ ...env, PORT: String(clashPort), BASE_URL: `http://127.0.0.1:${clashPort}` });
      await expect(clash.ready).rejects.toThrow(/in use by another process/);

      expect(await first.stop()).toBe(0);

      const second = startCli(env);
      await second.ready;
      expect(second.output()).not.toMatch(/cak_/);
      expect(second.output()).toContain('keys create --tenant demo');
      const again = await json(
        await fetch(`http://127.0.0.1:${port}/v0/pages`, { headers: { 'x-api-key': key ?? '' } }),
      );
      expect(again.totalCount).toBe(3);
      expect(await second.stop()).toBe(0);
    });
  },
);
