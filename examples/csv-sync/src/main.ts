#!/usr/bin/env node
// Syncs accounts from a CSV file: CUSTOMER_API_KEY=cak_… node dist/main.js accounts.csv
// (CUSTOMER_API_BASE_URL defaults to http://127.0.0.1:3000). Run it again: nothing is duplicated.
import { createClient } from '@customer-api/client';
import { Presets, SingleBar } from 'cli-progress';
import { readCsv, syncAccounts } from './sync.js';

const path = process.argv[2];
if (!path) {
  process.stderr.write(
    'Usage: csv-sync <file.csv>   (columns: domain, name, anything else goes into the payload)\n',
  );
  process.exit(1);
}
const rows = await readCsv(path);
const client = createClient();
// The bar draws on stderr (in place on a terminal, a line every few seconds in CI logs).
const bar = new SingleBar(
  {
    format: 'accounts [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}',
    noTTYOutput: true,
    notTTYSchedule: 2000,
  },
  Presets.shades_classic,
);
bar.start(rows.length, 0);
try {
  const result = await syncAccounts({ client, rows, onRow: () => bar.increment() });
  process.stdout.write(`${JSON.stringify({ rows: rows.length, ...result })}\n`);
} finally {
  bar.stop();
  await client.close();
}
