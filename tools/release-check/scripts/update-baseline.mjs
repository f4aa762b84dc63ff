#!/usr/bin/env node
// Part of `pnpm version-packages`: once `changeset version` has set the contract's next version,
// copies the contract's OpenAPI document to baseline/openapi.json and records that version in
// baseline/release.json: the released document the compatibility gate (src/compat/gate.ts)
// compares against. `--unreleased` records it without marking it released.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const contract = join(here, '../../../packages/contract');
const { version } = JSON.parse(readFileSync(join(contract, 'package.json'), 'utf8'));
const released = !process.argv.includes('--unreleased');
copyFileSync(join(contract, 'openapi.json'), join(here, '../baseline/openapi.json'));
writeFileSync(
  join(here, '../baseline/release.json'),
  `${JSON.stringify({ contractVersion: version, released })}\n`,
);
console.log(`contract OpenAPI baseline: ${version}${released ? '' : ' (not released)'}`);
