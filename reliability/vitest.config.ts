import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The HA and Citus scenarios need root and their own hosts or cluster: deploy/ha/run.sh
    // (`pnpm test:ha`) and deploy/citus/run.sh (`pnpm test:citus`) run them.
    exclude: ['src/ha/**', 'src/citus/**', '**/node_modules/**'],
    // Files start real server processes and databases: one at a time keeps a loaded 2-core
    // machine from turning timing margins into flakes.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
