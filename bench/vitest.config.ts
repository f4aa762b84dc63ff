import { defineConfig } from 'vitest/config';

// Only the bench's own checks (src/**/*.test.ts); the scenarios run with `pnpm bench`, never here.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
  },
});
