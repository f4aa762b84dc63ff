import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // One file starts the real server: PGlite's cold start takes long on a loaded machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
