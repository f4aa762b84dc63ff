import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import type { Change, JsonObject } from './changes.js';
import { diffOpenApi } from './openapi-diff.js';

/**
 * The contract's OpenAPI document as last released (`pnpm changeset version` rewrites it), with
 * the contract version it was released under; `released` is false until the first release.
 */
export interface Baseline {
  contractVersion: string;
  released: boolean;
  openapi: JsonObject;
}

/** What the gate decided about the current document against the baseline. */
export interface Verdict {
  /** False when the release must not go out as it is. */
  ok: boolean;
  breaking: Change[];
  additive: Change[];
  /** One line for the release check's output. */
  summary: string;
}

/** Reads the baseline `scripts/update-baseline.mjs` wrote into `dir` (release.json, openapi.json). */
export function readBaseline(dir: string): Baseline {
  const read = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
  const release = read('release.json') as Omit<Baseline, 'openapi'>;
  return { ...release, openapi: read('openapi.json') as JsonObject };
}

/** Formats a change for a person: `response-field-removed at GET /v0/pages › … (detail)`. */
export function describe(change: Change): string {
  return `${change.kind} at ${change.at}${change.detail ? ` (${change.detail})` : ''}`;
}

/**
 * DESIGN's compatibility policy: a breaking change needs a major version of
 * `@customer-api/contract`. `nextVersion` is the contract's version once the pending changesets
 * are applied (`changeset version`), so a changeset of the fixed group that bumps any of its
 * packages to a major counts. Before the first release, breaking changes are reported only:
 * nobody depends on an unreleased document.
 */
export function judge(baseline: Baseline, current: JsonObject, nextVersion: string): Verdict {
  const changes = diffOpenApi(baseline.openapi, current);
  const breaking = changes.filter((c) => c.breaking);
  const additive = changes.filter((c) => !c.breaking);
  const counts = `${breaking.length} breaking, ${additive.length} additive change(s) since ${baseline.contractVersion}`;
  if (breaking.length === 0) return { ok: true, breaking, additive, summary: `${counts}: compatible` };
  if (semver.major(nextVersion) > semver.major(baseline.contractVersion)) {
    return { ok: true, breaking, additive, summary: `${counts}: released as a major (${nextVersion})` };
  }
  if (!baseline.released) {
    return { ok: true, breaking, additive, summary: `${counts}: reported only, nothing released yet` };
  }
  return {
    ok: false,
    breaking,
    additive,
    summary: `${counts}, but the next contract version is ${nextVersion}: add a changeset with "@customer-api/contract": major, or make the change additive`,
  };
}
