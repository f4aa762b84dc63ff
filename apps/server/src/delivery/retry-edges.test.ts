import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry.js';

const now = new Date('2026-01-01T00:00:00.000Z');

describe('parseRetryAfter edge cases', () => {
  it('reads delta seconds surrounded by whitespace', () => {
    expect(parseRetryAfter(' 120', now)).toBe(120_000);
    expect(parseRetryAfter('120 ', now)).toBe(120_000);
    expect(parseRetryAfter(['\t30 '], now)).toBe(30_000);
  });

  it('ignores dates that do not start with a day name, which Date.parse would read', () => {
    // Each of these parses as 2026-01-01T00:01:00Z in V8; none is an HTTP date.
    for (const value of [
      '01 Jan 2026 00:01:00 GMT',
      'T 1 Jan 2026 00:01:00 GMT',
      'A, 01 Jan 2026 00:01:00 GMT',
    ])
      expect(parseRetryAfter(value, now)).toBeUndefined();
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
  });
});
