import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CHROMIUM } from '@customer-api/test-server';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from './test/real-server.js';
import {
  bunBinary,
  denoBinary,
  denoCodeModules,
  exportTarget,
  launchChromium,
  type StaticSite,
  startStaticSite,
  workerdConfig,
  workerdLauncher,
} from './test/runtimes.js';

// The client's end-to-end subset (runtime/subset.mjs) on five runtimes against one real server.
// It runs on the built package (`turbo test` builds first), resolved by name as a consumer would.
const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const run = promisify(execFile);

let server: RealServer;
let scratch: string;
let refusedUrl: string;
/** Serves the browser check's page, from an origin the server lists in `CORS_ALLOWED_ORIGINS`. */
let site: StaticSite;
/**
 * Without the browser, a developer's run skips the browser check (as the server's browser tests do);
 * CI installs Chromium and never skips it, and fails when it cannot start.
 */
const browserRuns = existsSync(CHROMIUM) || Boolean(process.env.CI);
/** Chromium starts while the server does; only the browser test awaits it (and fails if it cannot). */
let chromiumStarted: Promise<Browser> | undefined;

beforeAll(async () => {
  if (browserRuns) {
    chromiumStarted = launchChromium();
    chromiumStarted.catch(() => {});
  }
  [site, scratch, refusedUrl] = await Promise.all([
    startStaticSite(),
    mkdtemp(join(tmpdir(), 'customer-api-client-runtimes-')),
    closedPortUrl(),
  ]);
  server = await startRealServer({ CORS_ALLOWED_ORIGINS: site.origin });
});
afterAll(async () => {
  await chromiumStarted?.then(
    (browser) => browser.close(),
    () => {},
  );
  await server?.close();
  await site?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** What every runtime must report: the subset's result on the demo tenant. */
function expectSubsetPassed(output: string) {
  const result = JSON.parse(output);
  expect(result).toEqual({
    version,
    statuses: [201, 200],
    sameLog: true,
    rateLimitHeader: expect.stringMatching(/^\d+$/),
    requestId: true,
    pagesIterated: result.pagesTotal,
    pagesTotal: expect.any(Number),
    notFound: { isNotFound: true, isApiError: true, code: 'NOT_FOUND' },
    refused: { isConnection: true, isApiError: true, code: 'CONNECTION_ERROR', status: 0 },
    keyLogged: false,
    debugLines: true,
    webhook: { verified: 'evt_01jd4x3k5n8q2r6t9v0w1y2z3a', tampered: 'invalid_signature' },
    conditional: {
      strongTag: true,
      revalidated: { status: 304, fromCache: true, sameTag: true, sameBody: true, uncounted: true },
      notModified: true,
      newTagAfterWrite: true,
      stale: { isPreconditionFailed: true, code: 'PRECONDITION_FAILED', status: 412 },
      titleKept: 'renamed',
    },
  });
  // Three or more demo pages at two per page: iterate really followed cursors.
  expect(result.pagesTotal).toBeGreaterThan(2);
}

describe('the client on other runtimes, against a real server', () => {
  it('bundled by esbuild into one file, runs on Node with no package.json or node_modules beside it', async () => {
    const dir = join(scratch, 'node-bundle');
    await build({
      entryPoints: [join(root, 'runtime', 'cli.mjs')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: join(dir, 'check.cjs'),
      logLevel: 'silent',
    });
    const { stdout } = await run(process.execPath, ['check.cjs', server.url, server.apiKey, refusedUrl], {
      cwd: dir,
    });
    expectSubsetPassed(stdout);
  });

  it('runs under Bun, which resolves the package through its "bun" export condition', async () => {
    const { stdout } = await run(
      bunBinary(),
      [join('runtime', 'cli.mjs'), server.url, server.apiKey, refusedUrl],
      { cwd: root, env: { ...process.env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' } },
    );
    expectSubsetPassed(stdout);
  });

  it('runs inside workerd, bundled as a Worker would be (workerd, worker, browser conditions)', async () => {
    const dir = join(scratch, 'workerd');
    await mkdir(dir, { recursive: true });
    const result = await build({
      entryPoints: [join(root, 'runtime', 'worker.mjs')],
      absWorkingDir: root,
      bundle: true,
      platform: 'neutral',
      format: 'esm',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      outfile: join(dir, 'worker.mjs'),
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /node_modules\/undici\//.test(path))).toEqual([]);
    expect(inputs).toContain(exportTarget(root, ['workerd', 'worker', 'browser', 'import']));
    await writeFile(
      join(dir, 'config.capnp'),
      workerdConfig({ BASE_URL: server.url, API_KEY: server.apiKey, REFUSED_URL: refusedUrl }),
    );
    const { stdout, stderr } = await run(process.execPath, [workerdLauncher(), 'test', 'config.capnp'], {
      cwd: dir,
    });
    const line = `${stdout}\n${stderr}`.split('\n').find((text) => text.startsWith('RESULT '));
    expect(line, stderr).toBeDefined();
    expectSubsetPassed(line?.slice('RESULT '.length) ?? '');
  });

  it('runs under Deno with network access to loopback only, through its "deno" export condition', async () => {
    const env = { ...process.env, DENO_DIR: join(scratch, 'deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
    const [info, { stdout }] = await Promise.all([
      run(denoBinary(), ['info', '--json', join('runtime', 'cli.mjs')], { cwd: root, env }),
      run(
        denoBinary(),
        [
          'run',
          '--no-prompt',
          '--allow-net=127.0.0.1',
          join('runtime', 'cli.mjs'),
          server.url,
          server.apiKey,
          refusedUrl,
        ],
        { cwd: root, env },
      ),
    ]);
    const modules = denoCodeModules(JSON.parse(info.stdout));
    expect(modules.filter((specifier) => specifier.includes('/undici/'))).toEqual([]);
    expect(modules).toContain(pathToFileURL(join(root, exportTarget(root, ['deno', 'node', 'import']))).href);
    expectSubsetPassed(stdout);
  });

  it.runIf(browserRuns)(
    'runs in headless Chromium, bundled into a page whose origin the server admits by CORS',
    async () => {
      const bundle = await build({
        entryPoints: [join(root, 'runtime', 'browser.mjs')],
        absWorkingDir: root,
        bundle: true,
        platform: 'browser',
        format: 'esm',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(bundle.metafile.inputs);
      expect(inputs.filter((path) => /node_modules\/undici\//.test(path))).toEqual([]);
      expect(inputs).toContain(exportTarget(root, ['browser', 'import']));
      site.setScript(bundle.outputFiles[0]?.text ?? '');
      if (!chromiumStarted) throw new Error('Chromium was not started');
      const page = await (await chromiumStarted).newPage();
      try {
        page.setDefaultTimeout(60_000);
        // A script that fails to load or throws ends the wait at once instead of at the timeout.
        const failed = new Promise<never>((_, reject) => page.on('pageerror', reject));
        await page.goto(`${site.origin}/`);
        await Promise.race([page.waitForFunction(() => 'runSubset' in globalThis), failed]);
        const result = await page.evaluate(
          (options) =>
            (globalThis as unknown as { runSubset: (o: typeof options) => Promise<unknown> }).runSubset(
              options,
            ),
          { baseUrl: server.url, apiKey: server.apiKey, refusedUrl },
        );
        expectSubsetPassed(JSON.stringify(result));
      } finally {
        await page.close();
      }
    },
  );
});

/** A loopback address nothing listens on: a port the OS just handed out and took back. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}
