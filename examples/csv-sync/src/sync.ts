import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { CustomerApiClient } from '@customer-api/client';
import { parse } from 'csv-parse';

/** One CSV row: `domain` is required, every other column goes into the log's payload. */
export type CsvRow = Record<string, string> & { domain: string };

/** What a sync did. */
export interface SyncResult {
  /** Rows that created a log entry (201). */
  created: number;
  /** Rows the service had already recorded (200: an idempotent replay). */
  replayed: number;
}

/** Options of {@link syncAccounts}. */
export interface SyncOptions {
  client: CustomerApiClient;
  rows: CsvRow[];
  /** `source` of the log entries (kebab-case). */
  source?: string;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Called after each row. */
  onRow?: () => void;
}

/** Reads a CSV file with a header line into rows; rows without a domain are an error. */
export async function readCsv(path: string): Promise<CsvRow[]> {
  const rows: CsvRow[] = [];
  const parser = createReadStream(path).pipe(parse({ columns: true, skip_empty_lines: true, trim: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    if (!record.domain) throw new Error(`${path}: row ${rows.length + 2} has no domain`);
    rows.push(record as CsvRow);
  }
  return rows;
}

/**
 * The idempotency key of a row: a hash of its content, so that re-running the same file replays
 * (no duplicates, even after a crash half-way), while an edited row is recorded as a new entry.
 */
export function idempotencyKey(row: CsvRow): string {
  const canonical = JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)));
  return `csv-sync-${createHash('sha256').update(canonical).digest('hex').slice(0, 40)}`;
}

/**
 * Records one account log per row through `createAccountLog`: the service finds the account by its
 * canonical domain and creates it when new. The client retries 429 and 503 after `Retry-After`;
 * the idempotency key makes those retries safe.
 */
export async function syncAccounts(options: SyncOptions): Promise<SyncResult> {
  const result: SyncResult = { created: 0, replayed: 0 };
  const queue = [...options.rows];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      const { domain, name, ...payload } = row;
      const response = await options.client.withResponse.createAccountLog({
        body: {
          domain,
          ...(name ? { name } : {}),
          source: options.source ?? 'csv-sync',
          type: 'account-import',
          payload,
          idempotencyKey: idempotencyKey(row),
        },
      });
      if (response.status === 201) result.created += 1;
      else result.replayed += 1;
      options.onRow?.();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return result;
}
