import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { readBaseline } from './gate.js';

const script = join(import.meta.dirname, '../../scripts/update-baseline.mjs');
const rootPackage = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../../package.json'), 'utf8'),
) as {
  scripts: Record<string, string>;
};
let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('`pnpm changeset version` records the versioned contract document as the released baseline', () => {
  const hook = rootPackage.scripts.changeset?.replace(/^node /, '') ?? '';
  expect(readFileSync(join(import.meta.dirname, '../../../..', hook), 'utf8')).toContain(
    'tools/release-check/scripts/update-baseline.mjs',
  );
  root = mkdtempSync(join(tmpdir(), 'baseline-'));
  mkdirSync(join(root, 'packages/contract'), { recursive: true });
  mkdirSync(join(root, 'tools/release-check/baseline'), { recursive: true });
  writeFileSync(join(root, 'packages/contract/package.json'), JSON.stringify({ version: '2.0.0' }));
  writeFileSync(
    join(root, 'packages/contract/openapi.json'),
    JSON.stringify({ openapi: '3.1.0', paths: {} }),
  );
  execFileSync(process.execPath, [script, '--root', root]);
  expect(readBaseline(join(root, 'tools/release-check/baseline'))).toEqual({
    contractVersion: '2.0.0',
    released: true,
    openapi: { openapi: '3.1.0', paths: {} },
  });
});
