import { describe, expect, it } from 'vitest';
import { iso, isoOrNull, systemClock } from './clock.js';

describe('timestamps as the API prints them', () => {
  it('are ISO 8601 in UTC with milliseconds and a trailing Z', () => {
    expect(iso(new Date(Date.UTC(2026, 10, 24, 9, 5, 7, 45)))).toBe('2026-11-24T09:05:07.045Z');
    // An instant given with an offset is printed in UTC.
    expect(iso(new Date('2026-01-01T01:30:00+02:00'))).toBe('2025-12-31T23:30:00.000Z');
  });

  it('pass an absent instant through as null', () => {
    expect(isoOrNull(null)).toBeNull();
    expect(isoOrNull(undefined)).toBeNull();
    expect(isoOrNull(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
  });
});

describe('systemClock', () => {
  it('reads the current time, a new Date on every call', () => {
    const before = Date.now();
    const first = systemClock();
    const second = systemClock();
    const after = Date.now();
    expect(first).toBeInstanceOf(Date);
    expect(first.getTime()).toBeGreaterThanOrEqual(before);
    expect(second.getTime()).toBeLessThanOrEqual(after);
    expect(second).not.toBe(first);
  });
});
