/** A subscription failing without a single success for this long is disabled (DESIGN, Webhooks). */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** The longest `Retry-After` honoured; a receiver cannot park a delivery for longer than a day. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** Relative jitter applied to every scheduled delay: ±20 %. */
export const JITTER = 0.2;

/**
 * Delay before the retry that follows the failure of schedule step `step` (0 for the first
 * attempt), or undefined when the schedule is exhausted. `schedule` is seconds between attempts
 * (`WEBHOOKS_RETRY_SCHEDULE`); jitter spreads retries of many deliveries that failed together,
 * so a receiver coming back up is not hit by all of them at once.
 */
export function retryDelayMs(
  schedule: readonly number[],
  step: number,
  random: () => number = Math.random,
): number | undefined {
  const seconds = schedule[step];
  if (seconds === undefined) return undefined;
  const factor = 1 + (random() * 2 - 1) * JITTER;
  return Math.round(seconds * 1000 * factor);
}

/**
 * A `Retry-After` header (delta seconds or an HTTP date) as milliseconds from `now`, capped at
 * {@link MAX_RETRY_AFTER_MS}; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // HTTP dates start with a day name; Date.parse alone would read "-5" or "1.5" as dates.
    const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - now.getTime();
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/**
 * When the next attempt runs: the scheduled (jittered) delay, but never earlier than the
 * receiver asked with `Retry-After`. Undefined when no retry is left.
 */
export function nextAttemptAt(
  now: Date,
  scheduledDelayMs: number | undefined,
  retryAfterMs: number | undefined,
): Date | undefined {
  if (scheduledDelayMs === undefined) return undefined;
  return new Date(now.getTime() + Math.max(scheduledDelayMs, retryAfterMs ?? 0));
}

/** True when a subscription failing since `failingSince` has failed long enough to be disabled. */
export function failedTooLong(failingSince: Date | null, now: Date): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS;
}
