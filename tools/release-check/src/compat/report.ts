import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from './changes.js';
import { FIXTURE_BASE } from './fixture-base.js';
import { applyFixture, FIXTURES } from './fixtures.js';
import { describe, judge, readBaseline } from './gate.js';

/** What the release check prints for the compatibility gate, and whether it passed. */
export interface CompatibilityReport {
  ok: boolean;
  lines: string[];
}

/**
 * The gate on the contract's committed OpenAPI document against the released baseline, given
 * the contract version the pending changesets lead to; then every fixture of `fixtures.ts`
 * through the same gate, each with its verdict, so the output shows the gate still tells
 * breaking from additive.
 */
export function compatibilityReport(root: string, nextContractVersion: string): CompatibilityReport {
  const baseline = readBaseline(join(root, 'tools/release-check/baseline'));
  const current = JSON.parse(
    readFileSync(join(root, 'packages/contract/openapi.json'), 'utf8'),
  ) as JsonObject;
  const verdict = judge(baseline, current, nextContractVersion);
  const lines = [`contract OpenAPI against the baseline: ${verdict.summary}`];
  for (const change of verdict.breaking.slice(0, 20)) lines.push(`  breaking: ${describe(change)}`);
  if (verdict.breaking.length > 20) lines.push(`  … and ${verdict.breaking.length - 20} more`);
  let ok = verdict.ok;
  const released = { contractVersion: '1.0.0', released: true, openapi: FIXTURE_BASE };
  const results = FIXTURES.map((fixture) => {
    const fixtureVerdict = judge(released, applyFixture(fixture), '1.1.0');
    const found = [...fixtureVerdict.breaking, ...fixtureVerdict.additive].some(
      (c) => c.kind === fixture.kind,
    );
    const right = found && fixtureVerdict.ok === !fixture.breaking;
    ok &&= right;
    const said = fixtureVerdict.ok ? 'passes in a minor' : 'refused without a major';
    return `  ${right ? 'ok  ' : 'FAIL'} ${fixture.name}: ${said} (${fixture.kind})`;
  });
  const breaking = FIXTURES.filter((f) => f.breaking).length;
  lines.push(
    `compatibility fixtures: ${breaking} breaking, ${FIXTURES.length - breaking} additive`,
    ...results,
  );
  return { ok, lines };
}
