#!/usr/bin/env node
// The root `changeset` script (`pnpm changeset …`): runs the changesets CLI with the given
// arguments, then, after `version`, brings the files that carry a version but that changesets does
// not write into step with the new package versions: apps/mcp/server.json (the MCP Registry entry)
// and, when the contract's version moved, the released OpenAPI baseline of the compatibility gate.
// changesets runs no lifecycle script on `version`, so this is where that has to happen
// (docs/decisions/0218-release-to-any-registry.md). `pnpm version-packages` is this with `version`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
const contractVersion = () =>
  JSON.parse(readFileSync(join(root, 'packages/contract/package.json'), 'utf8')).version;

const node = (script, ...rest) => {
  const { status } = spawnSync(process.execPath, [script, ...rest], { cwd: root, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
};

const before = contractVersion();
node(createRequire(join(root, 'package.json')).resolve('@changesets/cli/bin.js'), ...args);
if (args[0] === 'version') {
  node(join(root, 'apps/mcp/scripts/sync-server-json.mjs'));
  if (contractVersion() !== before) node(join(root, 'tools/release-check/scripts/update-baseline.mjs'));
}
