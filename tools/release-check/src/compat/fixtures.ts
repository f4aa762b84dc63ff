import { ADDITIVE_FIXTURES } from './additive-fixtures.js';
import { BREAKING_FIXTURES } from './breaking-fixtures.js';
import type { JsonObject } from './changes.js';
import { FIXTURE_BASE, type Fixture } from './fixture-base.js';

/** One fixture per kind of breaking change DESIGN names, then additive ones. */
export const FIXTURES: Fixture[] = [...BREAKING_FIXTURES, ...ADDITIVE_FIXTURES];

/** {@link FIXTURE_BASE} with one fixture's change applied (the base is never modified). */
export function applyFixture(fixture: Fixture): JsonObject {
  const doc = structuredClone(FIXTURE_BASE);
  fixture.change(doc);
  return doc;
}
