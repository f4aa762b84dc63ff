import type * as Retry from '../core/retry.js';

// The waits between attempts, recorded instead of slept: a test reads what the client asked to
// wait, not the clock. A test file mocks retry.js with it (vi.mock hoists above imports, so the
// factory imports this module itself):
//   vi.mock('./retry.js', async (original) =>
//     (await import('../test/recorded-waits.js')).recordingWaits(await original()));

/** Every wait the client asked for, in order; a test empties it before each case. */
export const waits: number[] = [];

/**
 * retry.js with its `sleep` recorded into {@link waits}: a wait ends at once, unless it is at least
 * `sleepsFromMs` long, when it is really slept (for an abort to end).
 */
export function recordingWaits(actual: typeof Retry, sleepsFromMs = Number.POSITIVE_INFINITY): typeof Retry {
  return {
    ...actual,
    sleep: (ms: number, signal?: AbortSignal) => {
      waits.push(ms);
      return ms >= sleepsFromMs ? actual.sleep(ms, signal) : actual.sleep(0, signal);
    },
  };
}
