import { defineConfig } from 'vitest/config';

// The tests Stryker runs against mutants of src/core and src/webhooks (stryker.config.json): the
// suites that exercise them through the client's public surface. Stryker's own `testFiles` option
// is not used: in 10.1 it switches static mutants on after the module has loaded (wrong survivors).
export default defineConfig({
  test: {
    include: [
      'src/core/**/*.test.ts',
      'src/webhooks/**/*.test.ts',
      'src/client.test.ts',
      'src/observe.test.ts',
      'src/upload.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
