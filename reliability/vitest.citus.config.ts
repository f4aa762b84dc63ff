import { defineConfig } from 'vitest/config';

/** `pnpm test:citus` (deploy/citus/run.sh): the scenarios on a Citus cluster of their own. */
export default defineConfig({
  test: {
    include: ['src/citus/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
  },
});
