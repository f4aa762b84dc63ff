import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One migrated PGlite dump shared by every test file (see src/test/global-setup.ts).
    globalSetup: ['src/test/global-setup.ts'],
    // Files share their workers' modules instead of loading Fastify, drizzle, PGlite and the contract
    // again for each of ~100 files: on PGlite the suite's CPU halves, on PostgreSQL it is unchanged.
    // Each file opens and closes its own database and app. A file that mocks a module (vi.mock) or
    // leaves process-wide state changed needs a project of its own with isolation.
    isolate: false,
    // A ceiling, not a budget: every package's tests run at once on two cores under `pnpm test`,
    // and tests that start processes (servers, CLIs, packers) take seconds each there.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // `expect.poll` waits for an event (a request in line, a delivery recorded): on a loaded machine
    // it can take longer than the default second, and waiting longer loosens no assertion.
    expect: { poll: { timeout: 30_000 } },
  },
});
