import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from './migrate.js';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('committed migrations', () => {
  it('match the schema: drizzle-kit generates nothing new', async () => {
    const out = await mkdtemp(join(tmpdir(), 'customer-api-migrations-'));
    try {
      await cp(MIGRATIONS_FOLDER, out, { recursive: true });
      const before = (await readdir(out)).filter((f) => f.endsWith('.sql'));
      // drizzle-kit prefixes `out` with './', so it must be relative; it exits 0 even on errors.
      const { stdout, stderr } = await run(
        join(packageRoot, 'node_modules/.bin/drizzle-kit'),
        ['generate', '--name', 'drift'],
        {
          cwd: packageRoot,
          env: { ...process.env, DRIZZLE_OUT: relative(packageRoot, out) },
        },
      );
      expect(`${stdout}${stderr}`).not.toMatch(/Error/);
      const after = (await readdir(out)).filter((f) => f.endsWith('.sql'));
      expect(after, 'schema changed without a migration: run db:generate').toEqual(before);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
