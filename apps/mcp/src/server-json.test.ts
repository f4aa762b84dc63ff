import { readFileSync } from 'node:fs';
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
});
