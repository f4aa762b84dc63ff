import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of src/lib (pagination, domain, clock, counters, errors,
// ids), webhook signing and retry timing (src/delivery/sign.ts, retry.ts) and the rate limiter's
// decisions (src/rate-limit/decision.ts, memory.ts), as stryker.config.json lists
// them: their unit tests, which start no server (pagination-sql.test.ts and counters.test.ts open
// an embedded PGlite).
// Stryker's `testFiles` option is not used: in 10.1 it switches static mutants on after the
// module has loaded (wrong survivors).
export default defineConfig({
  test: {
    include: [
      'src/lib/pagination*.test.ts',
      'src/lib/domain*.test.ts',
      'src/lib/clock*.test.ts',
      'src/lib/counters*.test.ts',
      'src/lib/errors*.test.ts',
      'src/lib/ids*.test.ts',
      'src/delivery/sign*.test.ts',
      'src/delivery/retry*.test.ts',
      'src/rate-limit/decision*.test.ts',
      'src/rate-limit/memory*.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
