#!/usr/bin/env node
// An MCP client session: CUSTOMER_API_KEY=cak_… node dist/main.js
// (CUSTOMER_API_BASE_URL defaults to http://127.0.0.1:3000).
import { connect, tour } from './session.js';

const apiKey = process.env.CUSTOMER_API_KEY;
if (!apiKey) {
  process.stderr.write('Set CUSTOMER_API_KEY (pnpm customer-api keys create --tenant demo prints one).\n');
  process.exit(1);
}
const client = await connect({
  apiKey,
  baseUrl: process.env.CUSTOMER_API_BASE_URL ?? 'http://127.0.0.1:3000',
});
try {
  await tour(client, (line) => process.stdout.write(`${line}\n`));
} finally {
  await client.close();
}
