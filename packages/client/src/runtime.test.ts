import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from './test/real-server.js';
import { bunBinary, workerdConfig, workerdLauncher } from './test/runtimes.js';

// The client's end-to-end subset (runtime/subset.mjs) on three runtimes against one real server.
// It runs on the built package (`turbo test` builds first), resolved by name as a consumer would.
const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const run = promisify(execFile);

let server: RealServer;
let scratch: string;
let refusedUrl: string;

beforeAll(async () => {
  [server, scratch, refusedUrl] = await Promise.all([
    startRealServer(),
    mkdtemp(join(tmpdir(), 'customer-api-client-runtimes-')),
    closedPortUrl(),
  ]);
});
afterAll(async () => {
  await server?.close();
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
    expect(inputs.some((path) => path.endsWith('dist/index.web.js'))).toBe(true);
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
