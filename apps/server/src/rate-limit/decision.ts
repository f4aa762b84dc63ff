import type { RateLimitDetails } from '@customer-api/contract';
import type { RateLimiterRes } from 'rate-limiter-flexible';

/** Outcome of counting one request against its caller's window. */
export interface RateLimitDecision extends RateLimitDetails {
  allowed: boolean;
}

/** Keys whose window a process remembers (a flood of new keys cannot grow memory beyond this). */
export const MAX_WINDOWS = 10_000;

/** The decision a store's answer means, `now` being the limiter's clock (epoch ms). */
export function decisionOf(
  res: RateLimiterRes,
  max: number,
  allowed: boolean,
  now: number,
): RateLimitDecision {
  const msBeforeNext = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit: max,
    remaining: Math.max(0, res.remainingPoints),
    resetTime: now + msBeforeNext,
    retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}
