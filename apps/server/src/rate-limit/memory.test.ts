import { describe, expect, it } from 'vitest';
import { MAX_WINDOWS } from './decision.js';
import { MemoryWindows } from './memory.js';

// The in-process fixed windows on a clock the test moves.
function limiter(max: number, windowMs: number) {
  const clock = { ms: Date.parse('2026-01-01T00:00:00Z') };
  return { clock, windows: new MemoryWindows(max, windowMs, () => clock.ms) };
}

describe('MemoryWindows', () => {
  it('admits up to the limit, then refuses with the time left until the window ends', () => {
    const { clock, windows } = limiter(3, 10_000);
    const start = clock.ms;
    expect(windows.consume('k')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetTime: start + 10_000,
      retryAfter: 10,
    });
    clock.ms += 2500;
    expect(windows.consume('k')).toMatchObject({ allowed: true, remaining: 1, retryAfter: 8 });
    expect(windows.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    clock.ms += 7499;
    expect(windows.consume('k')).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetTime: start + 10_000,
      retryAfter: 1,
    });
  });

  it('gives a point back to the window that counted it, never below none, never to the next window', () => {
    const { clock, windows } = limiter(2, 1000);
    windows.refund('unseen');
    expect(windows.consume('k')).toMatchObject({ remaining: 1 });
    windows.refund('k');
    expect(windows.consume('k')).toMatchObject({ remaining: 1 });
    expect(windows.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    windows.refund('k');
    windows.refund('k');
    windows.refund('k');
    expect(windows.consume('k')).toMatchObject({ allowed: true, remaining: 1 });
    clock.ms += 1000;
    windows.refund('k');
    expect(windows.consume('k')).toMatchObject({ remaining: 1 });
  });

  it('starts a new window exactly when the old one ends', () => {
    const { clock, windows } = limiter(1, 1000);
    expect(windows.consume('k').allowed).toBe(true);
    clock.ms += 999;
    expect(windows.consume('k').allowed).toBe(false);
    clock.ms += 1;
    expect(windows.consume('k')).toEqual({
      allowed: true,
      limit: 1,
      remaining: 0,
      resetTime: clock.ms + 1000,
      retryAfter: 1,
    });
  });

  it('counts several points at once, and each key on its own', () => {
    const { windows } = limiter(10, 1000);
    expect(windows.consume('a', 4)).toMatchObject({ allowed: true, remaining: 6 });
    expect(windows.consume('a', 6)).toMatchObject({ allowed: true, remaining: 0 });
    expect(windows.consume('a', 1)).toMatchObject({ allowed: false, remaining: 0 });
    expect(windows.consume('b')).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('keeps a live window through the sweep of ended ones', () => {
    const { clock, windows } = limiter(1, 60_000);
    // Keys seen once, whose windows then end: the next new key sweeps them away.
    for (let i = 0; i < MAX_WINDOWS; i += 1) windows.consume(`once:${i}`);
    clock.ms += 60_000;
    expect(windows.consume('busy').allowed).toBe(true);
    expect(windows.consume('busy').allowed).toBe(false);
    // Enough new keys to sweep again while the busy key's window still runs.
    clock.ms += 30_000;
    for (let i = 0; i < MAX_WINDOWS; i += 1) windows.consume(`later:${i}`);
    expect(windows.consume('busy')).toMatchObject({ allowed: false, retryAfter: 30 });
  });
});
