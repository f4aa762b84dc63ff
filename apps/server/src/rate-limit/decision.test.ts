import { RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { decisionOf } from './decision.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('decisionOf (what the shared store answer means for a 429 and its headers)', () => {
  it('reports the limit, the points left, the window end and whole seconds to wait', () => {
    const res = new RateLimiterRes(7, 1500, 3, false);
    expect(decisionOf(res, 10, true, now)).toEqual({
      allowed: true,
      limit: 10,
      remaining: 7,
      resetTime: now + 1500,
      retryAfter: 2,
    });
  });

  it('never reports negative points or a window that ended in the past', () => {
    const res = new RateLimiterRes(-4, -20, 14, false);
    expect(decisionOf(res, 10, false, now)).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      resetTime: now,
      retryAfter: 1,
    });
  });

  it('asks to wait at least a second, and rounds a partial second up', () => {
    expect(decisionOf(new RateLimiterRes(0, 1, 5, false), 5, false, now).retryAfter).toBe(1);
    expect(decisionOf(new RateLimiterRes(0, 1000, 5, false), 5, false, now).retryAfter).toBe(1);
    expect(decisionOf(new RateLimiterRes(0, 1001, 5, false), 5, false, now).retryAfter).toBe(2);
    expect(decisionOf(new RateLimiterRes(0, 60_000, 5, false), 5, false, now).retryAfter).toBe(60);
  });
});
