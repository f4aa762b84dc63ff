import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One real API server (apps/server's CLI) for the run; see src/test/api-server.ts.
    globalSetup: ['src/test/global-setup.ts'],
    // Files share their workers' modules instead of importing the MCP SDKs, the client and zod again
    // for each file (a quarter of the suite's CPU). No file mocks a module or changes process-wide
    // state; each starts and closes its own servers and sessions.
    isolate: false,
    // A ceiling, not a budget: every package's tests run at once on two cores under `pnpm test`,
    // and tests that start processes (servers, CLIs, packers) take seconds each there.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
