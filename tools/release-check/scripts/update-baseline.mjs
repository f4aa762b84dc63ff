#!/usr/bin/env node
// Part of `pnpm changeset version` (scripts/changeset.mjs): once changesets has set the contract's
// next version, copies the contract's OpenAPI document to tools/release-check/baseline/openapi.json and records
// that version in baseline/release.json: the released document the compatibility gate
// (src/compat/gate.ts) compares against. `--unreleased` records it without marking it released;
// `--root <dir>` works on another checkout (tests).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root =
  rootAt === -1
    ? join(dirname(fileURLToPath(import.meta.url)), '../../..')
    : resolve(args[rootAt + 1] ?? '.');
const contract = join(root, 'packages/contract');
const baseline = join(root, 'tools/release-check/baseline');
const { version } = JSON.parse(readFileSync(join(contract, 'package.json'), 'utf8'));
const released = !args.includes('--unreleased');
copyFileSync(join(contract, 'openapi.json'), join(baseline, 'openapi.json'));
writeFileSync(
  join(baseline, 'release.json'),
  `${JSON.stringify({ contractVersion: version, released }, null, 2)}\n`,
);
console.log(`contract OpenAPI baseline: ${version}${released ? '' : ' (not released)'}`);
