import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of src/lib/pagination.ts and src/lib/domain.ts
// (stryker.config.json): their unit tests, which need no database. Stryker's `testFiles` option is
// not used: in 10.1 it switches static mutants on after the module has loaded (wrong survivors).
export default defineConfig({
  test: {
    include: ['src/lib/pagination*.test.ts', 'src/lib/domain*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
