// The ingestion baseline: the statements `POST /v0/account_logs` issues (idempotency pre-read,
// then one transaction: account upsert, activity insert, account update, counters), sent
// directly with `pg` at the same concurrency and pool size as the server. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import { newId } from '@customer-api/server';
import pg from 'pg';

const { DATABASE_URL, TENANT_ID, RUN_ID } = process.env;
const SECONDS = Number(process.env.SECONDS);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const DOMAINS = Number(process.env.DOMAINS ?? 500);
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });

async function ingest(i: number): Promise<void> {
  const key = `${RUN_ID}-${Math.floor(i / 2)}`;
  const found = await pool.query(
    'SELECT * FROM account_activity WHERE tenant_id = $1 AND idempotency_key = $2',
    [TENANT_ID, key],
  );
  if (found.rows.length) return;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const now = new Date();
    const domain = `d${Math.floor(i / 2) % DOMAINS}.ingest.example`;
    let account = await client.query<{ id: string; tenant_id: string }>(
      `INSERT INTO accounts (id, tenant_id, domain, name, created_at, updated_at) VALUES ($1, $2, $3, NULL, $4, $4)
       ON CONFLICT (tenant_id, domain) DO NOTHING RETURNING *`,
      [newId('account'), TENANT_ID, domain, now],
    );
    const created = account.rows.length === 1;
    if (!created)
      account = await client.query<{ id: string; tenant_id: string }>(
        'SELECT * FROM accounts WHERE tenant_id = $1 AND domain = $2',
        [TENANT_ID, domain],
      );
    const row = account.rows[0];
    if (!row) throw new Error(`no account ${domain}`);
    const inserted = await client.query(
      `INSERT INTO account_activity (id, tenant_id, account_id, kind, log_id, person_id, source, type, payload,
         idempotency_key, request_hash, created_at, updated_at)
       VALUES ($1, $2, $3, 'account', $4, NULL, 'bench', 'page-view', $5, $6, 'hash', $7, $7)
       ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING *`,
      [newId('activity'), TENANT_ID, row.id, newId('accountlog'), { n: i }, key, now],
    );
    if (inserted.rows.length === 0) {
      await client.query('ROLLBACK');
      return;
    }
    await client.query(
      `UPDATE accounts SET updated_at = $2, latest_activity_at = GREATEST(latest_activity_at, $2::timestamptz),
         account_logs_count = account_logs_count + 1 WHERE tenant_id = $3 AND id = $1 RETURNING *`,
      [row.id, now, row.tenant_id],
    );
    if (created) {
      for (const scope of ['accounts', 'accounts:empty']) {
        await client.query(
          `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, $2, 1)
           ON CONFLICT (tenant_id, scope) DO UPDATE SET count = tenant_counters.count + 1`,
          [TENANT_ID, scope],
        );
      }
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

let next = 0;
let done = 0;
let errors = 0;
const until = performance.now() + SECONDS * 1000;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < until) {
      const i = next++;
      try {
        await ingest(i);
        done += 1;
      } catch {
        errors += 1;
      }
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
await pool.end();
process.stdout.write(`${JSON.stringify({ rps: done / seconds, total: done, errors })}\n`);
