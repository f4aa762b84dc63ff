import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSON_OPERATION_NAMES } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';

// Runs on the built output (`turbo test` builds first): what a consumer installs.
const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// publint --strict and attw --profile esm-only on this package's tarball run in the release check
// (tools/release-check, part of the same `pnpm test`), on the tarball the release would publish.
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
    for (const name of JSON_OPERATION_NAMES) expect(typeof client[name], name).toBe('function');
  });

  it('depends at run time on the contract and undici, with zod and OpenTelemetry as peers', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@customer-api/contract', 'undici']);
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(['@opentelemetry/api', 'zod']);
    expect(manifest.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
  });

  it('carries the version of its package.json, read from no file at run time', async () => {
    const entry = await import(join(root, 'dist', 'index.js'));
    expect(entry.CLIENT_VERSION).toBe(manifest.version);
    for (const file of ['index.web.js', 'index.browser.js']) {
      const other = await import(join(root, 'dist', file));
      expect(other.CLIENT_VERSION, file).toBe(manifest.version);
    }
  });
});
