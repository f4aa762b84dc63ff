import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { CHROMIUM, CHROMIUM_FLAGS } from '@customer-api/test-server';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadTestSettings } from '../config.js';
import { createSeeder, type TestTenant } from '../test/seed.js';
import { testConfig } from '../test/test-app.js';
import { createTestDatabase, type TestDatabase } from '../test/test-database.js';

/**
 * How long any step of the page may take (navigation, rendering, the try-it-out call). Rendering
 * the operations takes about 6 s on an idle two-core machine (Swagger UI parses its bundle and the
 * whole document); in CI the cores are shared with the other suites, and 30 s once ran out there.
 */
const STEP_WAIT_MS = 120_000;
/** CI artefact: the rendered page after the try-it-out call (gitignored). */
const SCREENSHOT = resolve(import.meta.dirname, '../../../../.artifacts/docs.png');

const specPath = createRequire(import.meta.url).resolve('@customer-api/contract/openapi.json');
type PathItems = Record<string, Record<string, { operationId: string }>>;
const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { paths: PathItems; webhooks?: PathItems };
/** Every operation of the document: its paths and its webhook events. */
const operationIds = [...Object.values(spec.paths), ...Object.values(spec.webhooks ?? {})].flatMap((item) =>
  Object.values(item).map((op) => op.operationId),
);

// Without the browser, a developer's run skips this file; CI installs Chromium and never skips it.
const runs = existsSync(CHROMIUM) || Boolean(process.env.CI);

describe.runIf(runs)('reference page in headless Chromium', () => {
  let testDb: TestDatabase;
  let app: FastifyInstance;
  let browser: Browser;
  let baseUrl: string;
  let tenant: TestTenant;

  beforeAll(async () => {
    testDb = await createTestDatabase(loadTestSettings().databaseUrl);
    app = await buildApp({
      config: testConfig(testDb.url ? { DATABASE_URL: testDb.url } : {}),
      database: testDb.database,
    });
    baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    tenant = await createSeeder(app, testDb.database.db).tenant();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_FLAGS] });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await testDb?.dispose();
  });

  it('lists every operation, takes an API key and runs a try-it-out call', { timeout: 300_000 }, async () => {
    const seeded = await createSeeder(app, testDb.database.db).page(tenant, { name: 'Seen in the browser' });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    page.setDefaultTimeout(STEP_WAIT_MS);
    page.setDefaultNavigationTimeout(STEP_WAIT_MS);
    const offsite: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(baseUrl) && !request.url().startsWith('data:'))
        offsite.push(request.url());
    });
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });

    await page.goto(`${baseUrl}/docs`);
    await page
      .locator('.opblock')
      .first()
      .waitFor()
      .catch((error: Error) => {
        // A page that never renders for another reason says why in its console.
        throw new Error(`${error.message}\nconsole errors: ${JSON.stringify(consoleErrors)}`);
      });
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => block.id.split('-').pop()),
    );
    expect(listed.sort()).toEqual([...operationIds].sort());

    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.auth-container input').fill(tenant.apiKey);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('.opblock[id$="-listPages"]');
    await operation.locator('.opblock-summary').first().click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    await expect
      .poll(() => operation.locator('.live-responses-table').textContent())
      .toContain(seeded.pageId);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(offsite).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });
});
