import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of src/common (stryker.config.json): its own tests and the
// OpenAPI document test (descriptions and titles are only visible there). Enums, patterns and
// bounds have tests of their own in src/common, so none of them is killed by the document alone.
// Stryker's `testFiles` option is not used: in 10.1 it switches static mutants on after the module
// has loaded (wrong survivors).
export default defineConfig({
  test: {
    include: ['src/common/**/*.test.ts', 'src/openapi.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
