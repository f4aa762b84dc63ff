import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OPERATION_NAMES } from '@customer-api/contract';
import { publint } from 'publint';
import { describe, expect, it } from 'vitest';

// Runs on the built output (`turbo test` builds first): what a consumer installs.
const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('built package', () => {
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

  it('depends at run time on the contract, ts-rest, undici and zod only', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@customer-api/contract',
      '@ts-rest/core',
      'undici',
      'zod',
    ]);
  });

  it('passes publint (strict)', async () => {
    const { messages } = await publint({ pkgDir: root, strict: true });
    expect(messages).toEqual([]);
  });

  it('passes @arethetypeswrong/cli for ESM consumers', { timeout: 60_000 }, async () => {
    const attw = join(root, 'node_modules', '.bin', 'attw');
    await expect(
      promisify(execFile)(attw, ['--pack', '.', '--profile', 'esm-only', '--format', 'ascii'], { cwd: root }),
    ).resolves.toBeDefined();
  });
});
