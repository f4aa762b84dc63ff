import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return builtFiles(path);
    return entry.name.endsWith('.js') && !entry.name.includes('.test.') ? [path] : [];
  });
}

describe('built package', () => {
  it("depends at run time on @ts-rest/core, and on zod as a peer (the consumer's own copy)", () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['@ts-rest/core']);
    expect(Object.keys(manifest.peerDependencies)).toEqual(['zod']);
  });

  it('imports nothing Node-only, so it runs in a browser', () => {
    const files = builtFiles(dist);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const specifiers = [
        ...source.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]/g),
      ]
        .map((m) => m[1] ?? m[2] ?? '')
        .filter((s) => !s.startsWith('.'));
      for (const specifier of specifiers)
        expect(['zod', '@ts-rest/core'], `${file}: ${specifier}`).toContain(specifier);
      expect(source, file).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/);
    }
  });

  it('exposes the contract from its entry point', async () => {
    const entry = await import(join(dist, 'index.js'));
    expect(Object.keys(entry.contract)).toContain('createAccountLog');
    expect(typeof entry.generateOpenApi).toBe('function');
  });
});
