// The read-path limit of scenario 1: what `GET /v0/pages?limit=20` asks of PostgreSQL (the keyset
// page and the maintained counter, the same two named prepared statements, sent together on two
// pooled connections, timestamps parsed as the server parses them), issued directly with `pg` at
// the load generator's concurrency and the server's pool size, each result mapped and serialised
// to the same JSON the API answers (cursor included). No HTTP, no auth, no validation: the ratio
// ours / this is what the service costs around the database's own work. Prints one JSON line.
import { performance } from 'node:perf_hooks';
import {
  CursorCodec,
  listPagesFirstStatement,
  parseTimestamptz,
  readCounterStatement,
  toApiPage,
  toPage,
} from '@customer-api/server/internals';
import pg from 'pg';

const { DATABASE_URL } = process.env;
const TENANT_ID = process.env.TENANT_ID ?? '';
const SECONDS = Number(process.env.SECONDS);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 50);
const POOL_SIZE = Number(process.env.POOL_SIZE ?? 10);
const LIMIT = 20;

const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return pg.types.getTypeParser(oid, format);
    if (oid === pg.types.builtins.TIMESTAMPTZ) return parseTimestamptz;
    if (oid === pg.types.builtins.INT8) return Number;
    return pg.types.getTypeParser(oid, 'text');
  },
};
const LIST_FIRST = listPagesFirstStatement;
const COUNTER = readCounterStatement;

const db = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE });
/** A row of the first page's statement, as the server maps it. */
type PageRow = Parameters<typeof toApiPage>[0];

const { rows: keyRows } = await db.query<{ value: string }>(
  `SELECT value FROM server_settings WHERE name = 'cursor_hmac_key'`,
);
const cursors = new CursorCodec(keyRows[0]?.value ?? '');
const binding = { tenantId: TENANT_ID, operation: 'listPages' };

async function listOnce() {
  const [page, counter] = await Promise.all([
    db.query<PageRow>({
      name: LIST_FIRST.name,
      text: LIST_FIRST.text,
      values: LIST_FIRST.values({ tenantId: TENANT_ID, take: LIMIT + 1 }),
      types,
    }),
    db.query<{ count: number }>({
      name: COUNTER.name,
      text: COUNTER.text,
      values: COUNTER.values({ tenantId: TENANT_ID, scope: 'pages' }),
      types,
    }),
  ]);
  const body = toPage({
    rows: page.rows,
    limit: LIMIT,
    totalCount: Number(counter.rows[0]?.count ?? 0),
    position: (row) => ({ createdAt: row.createdAt, id: row.id }),
    map: toApiPage,
    encode: (p) => cursors.encode(binding, p),
  });
  return JSON.stringify(body);
}

// Warm-up: prepares the statements on every connection.
await Promise.all(Array.from({ length: CONCURRENCY }, listOnce));
let done = 0;
let errors = 0;
let bytes = 0;
const until = performance.now() + SECONDS * 1000;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < until) {
      try {
        bytes = (await listOnce()).length;
        done += 1;
      } catch {
        errors += 1;
      }
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
await db.end();
process.stdout.write(`${JSON.stringify({ rps: done / seconds, total: done, errors, bytes })}\n`);
