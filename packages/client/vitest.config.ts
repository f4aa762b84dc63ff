import { defineConfig } from 'vitest/config';

/** Files that replace a module with `vi.mock`: a mock needs the file's own module graph. */
const MOCKING = [
  'src/core/retry.test.ts',
  'src/core/timeouts-abort.test.ts',
  'src/core/request-edges.test.ts',
];

export default defineConfig({
  test: {
    // A ceiling, not a budget: every package's tests run at once on two cores under `pnpm test`,
    // and tests that start processes (servers, CLIs, packers) take seconds each there.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        // The other files share their workers' modules instead of importing the client, undici and
        // zod again for each file (most of this suite's CPU under `pnpm test`). Each file builds its
        // own clients and servers; the few that spy on a global restore it after each test.
        test: { name: 'shared', include: ['src/**/*.test.ts'], exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
