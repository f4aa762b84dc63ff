import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHROMIUM, CHROMIUM_FLAGS } from '@customer-api/test-server';
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadTestSettings } from '../config.js';
import { createSeeder, type TestTenant } from '../test/seed.js';
import { testConfig } from '../test/test-app.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';

const STEP_WAIT_MS = 60_000;

/** What the page's module exports, as the page code below uses it. */
type CustomerApi = typeof import('@customer-api/client');

// Without the browser, a developer's run skips this file; CI installs Chromium and never skips it.
const runs = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** The client's browser build, bundled as a page would ship it (the `browser` export condition). */
async function clientBundle(): Promise<string> {
  const result = await build({
    stdin: { contents: "export * from '@customer-api/client';", resolveDir: import.meta.dirname },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The page: it loads the bundle as a module and hands it to the test as `window.customerApi`. */
const PAGE = `<!doctype html><title>page</title>
<script type="module">import * as api from '/client.js'; window.customerApi = api;</script>`;

/** A static site on loopback: the page and the client bundle at `/client.js`. */
async function staticSite(bundle: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.url === '/client.js') {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe.runIf(runs)('a browser page calling the API from another origin', () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let site: { server: Server; port: number };
  let browser: Browser;
  let apiUrl: string;
  let tenant: TestTenant;
  /** Listed in CORS_ALLOWED_ORIGINS; the same site as `http://localhost:<port>` is another origin. */
  let allowedOrigin: string;
  let otherOrigin: string;

  beforeAll(async () => {
    site = await staticSite(await clientBundle());
    allowedOrigin = `http://127.0.0.1:${site.port}`;
    otherOrigin = `http://localhost:${site.port}`;
    testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    app = await buildApp({
      config: testConfig({
        ...(testDb.url ? { DATABASE_URL: testDb.url } : {}),
        CORS_ALLOWED_ORIGINS: allowedOrigin,
      }),
      database: testDb.database,
    });
    apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    tenant = await createSeeder(app, testDb.database.db).tenant();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await testDb?.dispose();
    await new Promise((resolve) => site?.server.close(resolve));
  });

  async function pageAt(origin: string): Promise<Page> {
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_WAIT_MS);
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'customerApi' in globalThis);
    return page;
  }

  it('lists and creates through the client, reading the request id, the replay and errors', {
    timeout: 120_000,
  }, async () => {
    const page = await pageAt(allowedOrigin);
    const result = await page.evaluate(
      async ({ apiUrl, apiKey }) => {
        const { createClient, NotFoundError } = (globalThis as unknown as { customerApi: CustomerApi })
          .customerApi;
        const client = createClient({ baseUrl: apiUrl, apiKey });
        const listed = await client.withResponse.listTopics({ query: { limit: 1 } });
        const create = () =>
          client.withResponse.createTopic(
            { body: { title: 'Made in a browser' } },
            { idempotencyKey: 'browser-topic-1' },
          );
        const created = await create();
        const replayed = await create();
        const missing = await client
          .getPage({ params: { page_id: 'page_00000000000000000000000000' } })
          .catch((error: Error & { requestId?: string; code?: string }) => ({
            isNotFound: error instanceof NotFoundError,
            code: error.code,
            requestId: error.requestId,
          }));
        return {
          listed: {
            status: listed.status,
            requestId: listed.requestId,
            remaining: listed.headers.get('ratelimit-remaining'),
          },
          created: { status: created.status, requestId: created.requestId, topicId: created.data.topicId },
          replayed: {
            status: replayed.status,
            topicId: replayed.data.topicId,
            header: replayed.headers.get('idempotent-replayed'),
          },
          missing,
        };
      },
      { apiUrl, apiKey: tenant.apiKey },
    );
    expect(result.listed).toEqual({
      status: 200,
      requestId: expect.stringMatching(/^req_/),
      remaining: expect.stringMatching(/^\d+$/),
    });
    expect(result.created).toEqual({
      status: 201,
      requestId: expect.stringMatching(/^req_/),
      topicId: expect.any(String),
    });
    expect(result.replayed).toEqual({ status: 201, topicId: result.created.topicId, header: 'true' });
    expect(result.missing).toEqual({
      isNotFound: true,
      code: 'NOT_FOUND',
      requestId: expect.stringMatching(/^req_/),
    });
    await page.close();
  });

  it('reads the exposed headers with plain fetch', { timeout: 60_000 }, async () => {
    const page = await pageAt(allowedOrigin);
    const result = await page.evaluate(
      async ({ apiUrl, apiKey }) => {
        const response = await fetch(`${apiUrl}/v0/topics?limit=1`, { headers: { 'x-api-key': apiKey } });
        return {
          status: response.status,
          requestId: response.headers.get('x-request-id'),
          limit: response.headers.get('ratelimit-limit'),
        };
      },
      { apiUrl, apiKey: tenant.apiKey },
    );
    expect(result).toEqual({
      status: 200,
      requestId: expect.stringMatching(/^req_/),
      limit: expect.stringMatching(/^\d+$/),
    });
    await page.close();
  });

  it('is refused from another origin: fetch fails, and the client names CORS without retrying', {
    timeout: 60_000,
  }, async () => {
    const page = await pageAt(otherOrigin);
    const result = await page.evaluate(
      async ({ apiUrl, apiKey }) => {
        const plain = await fetch(`${apiUrl}/v0/topics?limit=1`, { headers: { 'x-api-key': apiKey } }).then(
          (response) => `answered ${response.status}`,
          (error: Error) => `${error.name}: ${error.message}`,
        );
        const { createClient, ConnectionError } = (globalThis as unknown as { customerApi: CustomerApi })
          .customerApi;
        const attempts: number[] = [];
        const client = createClient({
          baseUrl: apiUrl,
          apiKey,
          onRequest: (event: { attempt: number }) => {
            attempts.push(event.attempt);
          },
        });
        const error = await client
          .listTopics({ query: { limit: 1 } })
          .catch((e: Error & { corsBlocked?: boolean }) => e);
        return {
          plain,
          isConnectionError: error instanceof ConnectionError,
          corsBlocked: (error as { corsBlocked?: boolean }).corsBlocked,
          message: (error as Error).message,
          attempts,
        };
      },
      { apiUrl, apiKey: tenant.apiKey },
    );
    expect(result.plain).toBe('TypeError: Failed to fetch');
    expect(result.isConnectionError).toBe(true);
    expect(result.corsBlocked).toBe(true);
    expect(result.message).toContain('was blocked by CORS');
    expect(result.message).toContain(`CORS_ALLOWED_ORIGINS must list ${otherOrigin}`);
    expect(result.attempts).toEqual([1]);
    await page.close();
  });
});
