import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { deriveTools } from './tools/derive.js';
import { DEFAULT_TOOLSET } from './tools/select.js';

// Issue 16: the client configuration snippets of the README stay true to what the CLI accepts.
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  mcpName: string;
};
const CONFORMANCE = readFileSync(new URL('../../../docs/mcp-conformance.md', import.meta.url), 'utf8');
const env = { CUSTOMER_API_KEY: 'cak_test' };
const WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];

interface Entry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
}

/** Every server entry of the README's JSON blocks (`mcpServers`, or VS Code's `servers`). */
function entries(): [string, Entry][] {
  const blocks = [...README.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const inline = [...README.matchAll(/`(\{ "servers": .*?\})`/g)].map((m) => m[1] ?? '');
  return [...blocks, ...inline].flatMap((text) => {
    const json = JSON.parse(text) as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
    return Object.entries({ ...json.mcpServers, ...json.servers });
  });
}

/** The arguments after `npx -y <package>` on the README's command lines, comments and quotes dropped. */
function commandLines(): string[][] {
  const marker = `npx -y ${PACKAGE.name}`;
  return README.split('\n')
    .filter((line) => line.includes(marker) && !line.trimStart().startsWith('"'))
    .map((line) => {
      const rest = line.slice(line.indexOf(marker) + marker.length).replace(/\s+#.*$/, '');
      return rest.replace(/[\\`]/g, ' ').trim().split(/\s+/).filter(Boolean);
    });
}

describe('the README', () => {
  it('configures stdio clients with arguments and environment the CLI accepts', () => {
    const stdio = entries().filter(([, entry]) => entry.command);
    expect(stdio.length).toBeGreaterThanOrEqual(2);
    for (const [name, entry] of stdio) {
      expect(entry.command, name).toBe('npx');
      expect(entry.args?.slice(0, 2), name).toEqual(['-y', PACKAGE.name]);
      for (const key of Object.keys(entry.env ?? {})) expect(key, name).toMatch(/^(CUSTOMER_API_|MCP_)/);
      expect(() => parseConfig(entry.args?.slice(2) ?? [], { ...entry.env, ...env }), name).not.toThrow();
    }
  });

  it('points HTTP clients at /mcp with a key header the server reads', () => {
    const http = entries().filter(([, entry]) => entry.url);
    expect(http.length).toBeGreaterThanOrEqual(2);
    for (const [name, entry] of http) {
      expect(new URL(entry.url ?? '').pathname, name).toBe('/mcp');
      expect(Object.keys(entry.headers ?? {}), name).toEqual(['x-api-key']);
    }
  });

  it('runs the package with options the CLI accepts, and names it as the registry does', () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const args of lines) expect(() => parseConfig(args, env), args.join(' ')).not.toThrow();
    expect(README).toContain(`\`${PACKAGE.mcpName}\``);
  });

  it('counts the tools the server lists, and names every tool that asks before deleting', () => {
    const tools = deriveTools();
    expect(README).toContain(
      `${WORDS[DEFAULT_TOOLSET.length]} of them by default,\nall ${tools.length} with`,
    );
    expect(README).toContain(`all ${tools.length} tools take`);
    expect(CONFORMANCE).toContain(`Customer API's ${tools.length} tools`);
    const section = README.slice(README.indexOf('## Confirmation of deletes'), README.indexOf('## Options'));
    const named = [...new Set(section.match(/\bdelete_[a-z_]+/g))].sort();
    const deletes = tools.filter((t) => t.meta.kind === 'delete').map((t) => t.name);
    expect(named).toEqual([...deletes].sort());
    expect(section).toMatch(/^Every delete tool/m);
  });
});
