import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Files start real server processes and databases, and much of each file is waiting (load
    // phases, outages, leases): two files at a time, not more, so a loaded 2-core machine does not
    // turn timing margins into flakes. This suite is the longest task of `pnpm test`; one file at a
    // time it set the pass's wall time (340 s against 253 s for the next task).
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
