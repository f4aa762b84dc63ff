#!/usr/bin/env node
// Release rehearsal (`pnpm --filter @customer-api/release-check run check:publish`; .ci/run runs it
// on Node 24): the README's release steps, `pnpm changeset version` and `pnpm changeset publish`,
// on a scratch copy against a Verdaccio it starts, then the published packages installed from
// there by fresh npm and pnpm projects that call a running server, and `npx @customer-api/mcp`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey, freePort, runCli, serverEnv, startServer, tempDir } from '@customer-api/test-server';
import {
  buildPublishables,
  changesetPublish,
  gitTags,
  prepareRepository,
  publishedVersions,
} from './publish.js';
import { consumeFromRegistry, npxMcp } from './published.js';
import { copyWorkspace, PUBLISHABLE, versionPackages } from './scratch.js';
import { startVerdaccio } from './verdaccio.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const started = Date.now();
const step = (text: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${text}\n`);

const scratch = mkdtempSync(join(tmpdir(), 'release-rehearsal-'));
const repo = join(scratch, 'repo');
const stops: Array<() => Promise<unknown>> = [];
try {
  copyWorkspace(root, repo);
  const registry = await startVerdaccio(join(scratch, 'registry'));
  stops.push(registry.stop);
  step(`Verdaccio on ${registry.url}: a user and its token in the repository's .npmrc`);
  await prepareRepository(repo, registry);
  const versions = await versionPackages(repo);
  const version = versions.get('@customer-api/contract') ?? '';
  step(
    `pnpm changeset version: ${[...versions].map(([name, v]) => `${name}@${v}`).join(', ')}; server.json and the baseline follow`,
  );
  await buildPublishables(root, repo);
  step('pnpm run build in each publishable package (what pnpm release does first)');
  await changesetPublish(repo);
  const tags = await gitTags(repo);
  for (const { name } of PUBLISHABLE) {
    const held = await publishedVersions(registry, name, scratch);
    if (!held.includes(versions.get(name) ?? '')) {
      throw new Error(`${name}: the registry holds ${held.join(', ')}, not ${versions.get(name)}`);
    }
    if (!tags.includes(`${name}@${versions.get(name)}`)) {
      throw new Error(
        `changeset publish made no git tag ${name}@${versions.get(name)} (tags: ${tags.join(', ')})`,
      );
    }
  }
  step(
    `pnpm changeset publish: ${PUBLISHABLE.map((p) => `${p.name}@${versions.get(p.name)}`).join(', ')} on the registry, each tagged in git`,
  );

  const data = await tempDir('release-rehearsal-data-');
  const env = { ...serverEnv(data.path, 'embedded'), WEBHOOKS_DISPATCHER: '0', HOST: '127.0.0.1' };
  const apiKey = await createKey(env, 'release-rehearsal');
  await runCli(env, ['seed', '--tenant', 'release-rehearsal']);
  const server = await startServer({ port: await freePort(), env, cleanup: data.remove, killAfterMs: 5_000 });
  stops.push(() => server.stop(5_000));
  const target = { url: server.url, apiKey };
  for (const installer of ['npm', 'pnpm'] as const) {
    const printed = await consumeFromRegistry(join(scratch, installer), installer, registry, target, version);
    step(`${installer} consumer installed the client and contract from the registry: ${printed}`);
  }
  const tools = await npxMcp(join(scratch, 'npx'), registry, target, version);
  step(
    `npx @customer-api/mcp@${version} over stdio: initialize, tools/list (${tools} tools), list_pages: ok`,
  );
} catch (err) {
  process.stderr.write(`release rehearsal failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  rmSync(scratch, { recursive: true, force: true });
}
