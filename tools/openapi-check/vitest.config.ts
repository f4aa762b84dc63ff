import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One file starts a real server, two Prism proxies and a code generator: nothing else in parallel.
    fileParallelism: false,
    // The project's ceiling for files that start servers: a loaded machine can take minutes.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
