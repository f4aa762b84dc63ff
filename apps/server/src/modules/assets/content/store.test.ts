import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectoryStore } from './directory-store.js';

describe('DirectoryStore', () => {
  it('refuses every blob id it did not generate, so no input ever becomes a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'store-test-'));
    const store = new DirectoryStore(join(dir, 'assets'));
    try {
      for (const id of [
        '../escape',
        'blob_../../../etc/passwd',
        '/etc/passwd',
        'blob_0000000000000000000000000A',
      ]) {
        await expect(store.put('tenant_1', id, (async function* () {})()), id).rejects.toThrow(
          /not a blob id/,
        );
        await expect(store.get('tenant_1', id, 0, 0), id).rejects.toThrow(/not a blob id/);
        await expect(store.delete('tenant_1', id), id).rejects.toThrow(/not a blob id/);
      }
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
