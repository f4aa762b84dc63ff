import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One real API server (apps/server's CLI) for the run; see src/test/api-server.ts.
    globalSetup: ['src/test/global-setup.ts'],
    // A ceiling, not a budget: every package's tests run at once on two cores under `pnpm test`,
    // and tests that start processes (servers, CLIs, packers) take seconds each there.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
