import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from './config.js';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const pkg = read('package.json') as { name: string; version: string; mcpName: string };
const server = read('server.json') as {
  name: string;
  version: string;
  packages: { identifier: string; version: string; environmentVariables: { name: string }[] }[];
};

describe('server.json for the MCP Registry', () => {
  it('names the npm package that claims it (mcpName) at the same version', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name).toMatch(/^io\.github\.[\w-]+\/[\w-]+$/);
    expect(server.version).toBe(pkg.version);
    expect(server.packages.map((p) => [p.identifier, p.version])).toEqual([[pkg.name, pkg.version]]);
  });

  it('lists only environment variables the program reads', () => {
    const names = server.packages[0]?.environmentVariables.map((v) => v.name) ?? [];
    expect(names).toContain('CUSTOMER_API_KEY');
    for (const name of names) expect(USAGE, name).toContain(name);
  });

  it('follows the package version when `pnpm changeset version` runs, keeping its formatting', () => {
    const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const hook = root.scripts.changeset?.replace(/^node /, '') ?? '';
    expect(readFileSync(new URL(`../../../${hook}`, import.meta.url), 'utf8')).toContain(
      'apps/mcp/scripts/sync-server-json.mjs',
    );
    const dir = mkdtempSync(join(tmpdir(), 'server-json-'));
    try {
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(
        new URL('../scripts/sync-server-json.mjs', import.meta.url),
        join(dir, 'scripts/sync.mjs'),
      );
      copyFileSync(new URL('../server.json', import.meta.url), join(dir, 'server.json'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version: '1.2.3' }));
      execFileSync(process.execPath, [join(dir, 'scripts/sync.mjs')]);
      const synced = readFileSync(join(dir, 'server.json'), 'utf8');
      const parsed = JSON.parse(synced) as typeof server;
      expect(parsed.version).toBe('1.2.3');
      expect(parsed.packages.map((p) => p.version)).toEqual(['1.2.3']);
      const original = readFileSync(new URL('../server.json', import.meta.url), 'utf8');
      expect(synced.split('\n').length).toBe(original.split('\n').length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
