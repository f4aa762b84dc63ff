import { defineConfig } from 'vitest/config';

/** `pnpm test:ha` (deploy/ha/run.sh): the multi-host scenarios, run inside the `client` host. */
export default defineConfig({
  test: {
    include: ['src/ha/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
