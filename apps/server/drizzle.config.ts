import { defineConfig } from 'drizzle-kit';

// generated migrations: run `pnpm --filter @customer-api/server run db:generate`; never edit them.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: process.env.DRIZZLE_OUT ?? './src/db/migrations',
});
