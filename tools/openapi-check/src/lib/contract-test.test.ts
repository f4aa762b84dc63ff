import { OPERATION_NAMES } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { NOT_EXAMPLE_DRIVEN, ORDER } from './contract-test.js';

describe('the example-driven contract test', () => {
  it('runs every operation of the contract, or names it as driven by other traffic', () => {
    const covered = new Set([...ORDER, ...NOT_EXAMPLE_DRIVEN]);
    expect(OPERATION_NAMES.filter((name) => !covered.has(name))).toEqual([]);
    expect([...covered].filter((name) => !(OPERATION_NAMES as string[]).includes(name))).toEqual([]);
  });

  it('leaves to other traffic only what it cannot run, and runs nothing twice by mistake', () => {
    expect(ORDER.filter((name) => NOT_EXAMPLE_DRIVEN.includes(name))).toEqual([]);
    // `createAudienceVersion` runs twice on purpose: one version is published, one cancelled.
    expect(ORDER.filter((name, i) => ORDER.indexOf(name) !== i)).toEqual(['createAudienceVersion']);
  });
});
