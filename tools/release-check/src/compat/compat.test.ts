import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BREAKING_KINDS, type JsonObject } from './changes.js';
import { at, FIXTURE_BASE } from './fixture-base.js';
import { applyFixture, FIXTURES } from './fixtures.js';
import { type Baseline, judge, readBaseline } from './gate.js';
import { diffOpenApi } from './openapi-diff.js';

const released = (openapi: JsonObject): Baseline => ({ contractVersion: '1.4.2', released: true, openapi });

function fixture(name: string) {
  const found = FIXTURES.find((f) => f.name === name);
  if (!found) throw new Error(`no fixture named ${name}`);
  return found;
}

describe('contract compatibility gate', () => {
  it('finds nothing between a document and itself', () => {
    expect(diffOpenApi(FIXTURE_BASE, structuredClone(FIXTURE_BASE))).toEqual([]);
  });

  it.each(FIXTURES.filter((f) => f.breaking).map((f) => [f.name, f] as const))(
    'breaking: %s needs a major version',
    (_name, fixture) => {
      const doc = applyFixture(fixture);
      const found = diffOpenApi(FIXTURE_BASE, doc);
      expect(found).toContainEqual(expect.objectContaining({ kind: fixture.kind, breaking: true }));
      const minor = judge(released(FIXTURE_BASE), doc, '1.5.0');
      expect(minor.ok).toBe(false);
      expect(minor.summary).toContain('"@customer-api/contract": major');
      expect(judge(released(FIXTURE_BASE), doc, '2.0.0').ok).toBe(true);
    },
  );

  it.each(FIXTURES.filter((f) => !f.breaking).map((f) => [f.name, f] as const))(
    'additive: %s ships in a minor',
    (_name, fixture) => {
      const doc = applyFixture(fixture);
      const found = diffOpenApi(FIXTURE_BASE, doc);
      expect(found).toContainEqual(expect.objectContaining({ kind: fixture.kind, breaking: false }));
      expect(found.filter((c) => c.breaking)).toEqual([]);
      expect(judge(released(FIXTURE_BASE), doc, '1.5.0')).toMatchObject({ ok: true, breaking: [] });
    },
  );

  it('has a fixture for every kind of breaking change it knows', () => {
    const covered = new Set(FIXTURES.filter((f) => f.breaking).map((f) => f.kind));
    expect(BREAKING_KINDS.filter((k) => !covered.has(k))).toEqual([]);
  });

  it('reports but lets through breaking changes before the first release', () => {
    const doc = applyFixture(fixture('removed operation'));
    const verdict = judge({ contractVersion: '0.0.0', released: false, openapi: FIXTURE_BASE }, doc, '0.1.0');
    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.breaking.length).toBeGreaterThan(0);
    expect(verdict.summary).toContain('reported only');
  });

  it('says where a change is, down to the field', () => {
    const [change] = diffOpenApi(FIXTURE_BASE, applyFixture(fixture('removed response field'))).filter(
      (c) => c.breaking,
    );
    expect(change).toEqual({
      kind: 'response-field-removed',
      breaking: true,
      at: 'GET /v0/items › response 200 › items[] › name',
    });
  });

  it('sees no change where HTTP sees none: a response header spelled in another case', () => {
    const doc = structuredClone(FIXTURE_BASE);
    const headers = at(doc, 'paths', '/v0/items', 'get', 'responses', '200', 'headers');
    headers['x-request-id'] = headers['X-Request-Id'] ?? null;
    delete headers['X-Request-Id'];
    expect(diffOpenApi(FIXTURE_BASE, doc)).toEqual([]);
  });

  it('survives a component that refers to itself', () => {
    const tree = (extra: JsonObject): JsonObject => ({
      ...structuredClone(FIXTURE_BASE),
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: {
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              ...extra,
            },
          },
        },
      },
      paths: {
        '/tree': {
          get: {
            responses: {
              '200': {
                description: 'OK',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      },
    });
    expect(diffOpenApi(tree({ name: { type: 'string' } }), tree({}))).toEqual([
      expect.objectContaining({ kind: 'response-field-removed', at: 'GET /tree › response 200 › name' }),
    ]);
  });

  it("passes the contract's committed document against the committed baseline", () => {
    const root = join(import.meta.dirname, '../../../..');
    const baseline = readBaseline(join(root, 'tools/release-check/baseline'));
    const current = JSON.parse(
      readFileSync(join(root, 'packages/contract/openapi.json'), 'utf8'),
    ) as JsonObject;
    expect(diffOpenApi(current, structuredClone(current))).toEqual([]);
    expect(judge(baseline, current, baseline.contractVersion).ok).toBe(true);
  });

  it('catches a removed operation and a removed response field in the real document', () => {
    const root = join(import.meta.dirname, '../../../..');
    const before = JSON.parse(
      readFileSync(join(root, 'packages/contract/openapi.json'), 'utf8'),
    ) as JsonObject;
    const after = structuredClone(before);
    const paths = after.paths as Record<string, Record<string, JsonObject>>;
    delete paths['/v0/pages']?.post;
    const page = (after.components as Record<string, Record<string, JsonObject>>).schemas?.Page;
    delete (page?.properties as JsonObject | undefined)?.name;
    const kinds = diffOpenApi(before, after)
      .filter((c) => c.breaking)
      .map((c) => `${c.kind} ${c.at}`);
    expect(kinds).toContain('operation-removed POST /v0/pages');
    expect(
      kinds.some(
        (k) => k.startsWith('response-field-removed GET /v0/pages › response 200') && k.endsWith('› name'),
      ),
    ).toBe(true);
  });
});
