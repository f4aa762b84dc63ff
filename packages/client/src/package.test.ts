import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OPERATION_NAMES } from '@customer-api/contract';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Runs on the built output (`turbo test` builds first): what a consumer installs.
const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const run = promisify(execFile);

/**
 * Packs this package once, with the package manager running the test (`npm_execpath`: pnpm
 * under the README's command, which needs no global pnpm), else npm, which ships with Node.
 * Returns the tarball's path.
 */
async function packOnce(destination: string): Promise<string> {
  const execPath = process.env.npm_execpath;
  const [command, args] =
    execPath && /pnpm/.test(execPath)
      ? [process.execPath, [execPath, 'pack', '--pack-destination', destination]]
      : ['npm', ['pack', '--pack-destination', destination]];
  await run(command, args, { cwd: root });
  const [tarball] = (await readdir(destination)).filter((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`packing printed no tarball into ${destination}`);
  return join(destination, tarball);
}

// Packing and the two checkers spawn processes: they run under the config's ceiling, not a budget.
describe('built package', () => {
  let scratch: string;
  let tarball: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'customer-api-client-pack-'));
    tarball = await packOnce(scratch);
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('exposes the client, errors and webhook helpers from its entry point', async () => {
    const entry = await import(join(root, 'dist', 'index.js'));
    for (const name of [
      'createClient',
      'CustomerApiError',
      'RateLimitedError',
      'verifyWebhook',
      'getRequestId',
    ]) {
      expect(typeof entry[name], name).toBe('function');
    }
    const client = entry.createClient({ apiKey: 'k' });
    for (const name of OPERATION_NAMES) expect(typeof client[name], name).toBe('function');
  });

  it('depends at run time on the contract, ts-rest and undici, with zod and OpenTelemetry as peers', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@customer-api/contract',
      '@ts-rest/core',
      'undici',
    ]);
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['@opentelemetry/api', 'zod']);
    expect(manifest.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
  });

  it('carries the version of its package.json, read from no file at run time', async () => {
    const entry = await import(join(root, 'dist', 'index.js'));
    expect(entry.CLIENT_VERSION).toBe(manifest.version);
    const web = await import(join(root, 'dist', 'index.web.js'));
    expect(web.CLIENT_VERSION).toBe(manifest.version);
  });

  it('passes publint (strict)', async () => {
    const bytes = await readFile(tarball);
    const packed = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const { messages } = await publint({ strict: true, pack: { tarball: packed } });
    expect(messages).toEqual([]);
  });

  it('passes @arethetypeswrong/cli for ESM consumers', async () => {
    const attw = join(root, 'node_modules', '.bin', 'attw');
    await expect(
      run(attw, [tarball, '--profile', 'esm-only', '--format', 'ascii'], { cwd: root }),
    ).resolves.toBeDefined();
  });
});
