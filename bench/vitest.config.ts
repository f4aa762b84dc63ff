import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The bench's own checks only: its scenarios run with `pnpm bench`, never under `pnpm test`.
    include: ['src/**/*.test.ts'],
  },
});
