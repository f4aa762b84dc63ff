#!/usr/bin/env node
// Release dry run (part of `pnpm test`): what `pnpm changeset version` and `pnpm release` would do,
// on a scratch copy, without publishing. See the README's "Releases" section.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkBundleSize } from './bundle-size.js';
import { compatibilityReport } from './compat/report.js';
import { checkConsumer, type InstallSource, ownZod, type Packed } from './consumer.js';
import { zodConsumer } from './own-zod.js';
import { checkContents, checkManifest, lintTarball, pack } from './pack.js';
import { copyWorkspace, PUBLISHABLE, SERVER_PACKAGE, versionPackages } from './scratch.js';
import { checkServer } from './server.js';
import { checkStrictTypes } from './strict-types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const started = Date.now();
const step = (text: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${text}\n`);

// `--registry` (what `pnpm release` runs) resolves the consumer's dependencies on the npm registry;
// the default links them from this workspace, so `pnpm test` never depends on the network.
const installSource: InstallSource = process.argv.includes('--registry') ? 'registry' : 'workspace';

const scratch = mkdtempSync(join(tmpdir(), 'release-check-'));
try {
  copyWorkspace(root, join(scratch, 'repo'));
  const versions = await versionPackages(join(scratch, 'repo'));
  step(`changeset version: ${[...versions].map(([name, v]) => `${name}@${v}`).join(', ')}`);
  const compat = compatibilityReport(root, versions.get('@customer-api/contract') ?? '0.0.0');
  step(compat.lines.join('\n'));
  if (!compat.ok) throw new Error('the contract compatibility gate refused this release (above)');
  const packed: Packed[] = [];
  for (const pkg of PUBLISHABLE) {
    const tarball = await pack(join(scratch, 'repo'), pkg, join(scratch, 'tarballs'));
    const manifest = await checkManifest(tarball, versions);
    await checkContents(tarball, pkg.name, scratch);
    packed.push({ tarball, source: join(root, pkg.dir), manifest });
  }
  step(
    'pnpm pack: manifests carry the released versions, no workspace: ranges; each ships LICENSE and the sources its maps name',
  );
  const zods = [ownZod('zod-floor'), ownZod('zod')];
  const [zodConsumers] = await Promise.all([
    Promise.all(zods.map((zod) => zodConsumer(join(scratch, `zod-${zod.version}`), packed, zod))),
    ...packed.map(({ tarball }) => lintTarball(tarball, scratch)),
    checkConsumer(join(scratch, 'consumer'), packed, installSource),
  ]);
  step(
    `publint --strict and attw clean; tarballs installed (dependencies from the ${installSource}), imported from ESM and type-checked`,
  );
  step(
    `consumers with their own zod (${zods[0]?.version}, the floor of the peer range ${String(packed[0]?.manifest.peerDependencies?.zod)}, and ${zods[1]?.version}, the workspace's): type-checked, the contract's schemas are their zod's`,
  );
  step(await checkStrictTypes(join(scratch, 'strict-types'), packed));
  step(await checkBundleSize(join(scratch, 'bundle-size'), packed));
  // The server is not published: its tarball is installed alone (with the packed contract) and run.
  const serverTarball = await pack(join(scratch, 'repo'), SERVER_PACKAGE, join(scratch, 'tarballs'));
  const server: Packed = {
    tarball: serverTarball,
    source: join(root, SERVER_PACKAGE.dir),
    manifest: await checkManifest(serverTarball, versions),
  };
  const against = await checkServer(join(scratch, 'server'), server, packed, async (url, apiKey) => {
    for (const consumer of zodConsumers) await consumer.call(url, apiKey);
  });
  step(`packed server installed alone: customer-api migrate, keys create and serve ran on ${against}`);
  step(
    `each zod consumer called listPages on it with validateResponses (zod ${zodConsumers.map((c) => c.zod.version).join(', ')}): ok`,
  );
} catch (err) {
  process.stderr.write(`release check failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
