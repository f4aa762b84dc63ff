// Scenario 8: what `Idempotency-Key` costs. (a) p50/p99 of createAccountLog and
// createPage with and without the header, interleaved on one connection in the same run, so both
// see the same machine; (b) the key table after 100,000 keyed creations, with the default TTL
// (every row kept) and with a 10 s TTL (the sweep holds it to about one TTL of writes).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { BenchContext } from '../context.js';
import { ensureDatabase, pool as pgPool, tenantKey } from '../lib/db.js';
import { startOurs } from '../lib/ours.js';
import { stopProcess } from '../lib/proc.js';
import { percentile } from '../lib/stats.js';
import type { Table } from '../markdown.js';
import type { IdempotencyLatency, IdempotencyResult, KeyTable } from '../results.js';

/** One request of an operation: its path and JSON body. */
interface Creation {
  path: string;
  body: unknown;
}

const SHORT_TTL_S = 10;
const CONCURRENCY = 16;

const PAGE = { name: 'Bench', title: 'Bench', pageContext: 'ctx', brandId: 'b', pageType: 'inbound' };
/** A keyed or plain account log creation (the fill's requests). */
const createAccountLog = (n: number): Creation => ({
  path: '/v0/account_logs',
  body: { source: 'bench', type: 'page-view', domain: `d${n % 50}.idem.example`, payload: { n } },
});
const OPERATIONS: Record<string, (n: number) => Creation> = {
  createAccountLog,
  createPage: () => ({ path: '/v0/pages', body: PAGE }),
};

/** A creation answered otherwise than 201, with the status. */
class StatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function post(http: Pool, apiKey: string, { path, body }: Creation, key?: string): Promise<number> {
  const headers: Record<string, string> = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  if (key) headers['idempotency-key'] = key;
  const t0 = performance.now();
  const res = await http.request({ method: 'POST', path, headers, body: JSON.stringify(body) });
  await res.body.dump();
  const ms = performance.now() - t0;
  if (res.statusCode !== 201) throw new StatusError(`${path}: ${res.statusCode}`, res.statusCode);
  return ms;
}

/** {@link post}, repeated with the same key on 429, 503 and a running key's 409, as the client does. */
async function postRetrying(
  http: Pool,
  apiKey: string,
  request: Creation,
  key: string,
  counts: { retries: number },
): Promise<number> {
  for (;;) {
    try {
      return await post(http, apiKey, request, key);
    } catch (err) {
      if (!(err instanceof StatusError) || ![409, 429, 503].includes(err.status)) throw err;
      counts.retries += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** p50/p99 with and without a key, alternating request by request on one connection. */
async function latencies(
  url: string,
  apiKey: string,
  samples: number,
  warmUp: number,
): Promise<Record<string, IdempotencyLatency>> {
  const http = new Pool(url, { connections: 1 });
  const out: Record<string, IdempotencyLatency> = {};
  try {
    for (const [name, make] of Object.entries(OPERATIONS)) {
      for (let i = 0; i < warmUp; i += 1) await post(http, apiKey, make(i), i % 2 ? randomUUID() : undefined);
      const plain = [];
      const keyed = [];
      for (let i = 0; i < samples; i += 1) {
        plain.push(await post(http, apiKey, make(i)));
        keyed.push(await post(http, apiKey, make(i), randomUUID()));
      }
      const p50 = { plain: percentile(plain, 0.5), keyed: percentile(keyed, 0.5) };
      out[name] = {
        samples,
        warmUp,
        p50,
        p99: { plain: percentile(plain, 0.99), keyed: percentile(keyed, 0.99) },
        addedP50: p50.keyed - p50.plain,
      };
    }
  } finally {
    await http.close();
  }
  return out;
}

/** p50 of one PostgreSQL round trip (`SELECT 1`) from this process: what a keyed write adds four of. */
async function roundTripMs(databaseUrl: string, samples: number): Promise<number> {
  const db = pgPool(databaseUrl, 1);
  try {
    const times = [];
    for (let i = 0; i < samples; i += 1) {
      const t0 = performance.now();
      await db.query('SELECT 1');
      times.push(performance.now() - t0);
    }
    return percentile(times, 0.5);
  } finally {
    await db.end();
  }
}

/** `count` keyed createAccountLog requests from CONCURRENCY connections; then the table's size. */
async function fill(url: string, apiKey: string, databaseUrl: string, count: number): Promise<KeyTable> {
  const http = new Pool(url, { connections: CONCURRENCY });
  let next = 0;
  const counts = { retries: 0 };
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let n = next++; n < count; n = next++) {
        await postRetrying(http, apiKey, createAccountLog(n), randomUUID(), counts);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await http.close();
  const db = pgPool(databaseUrl, 1);
  try {
    const { rows } = await db.query<Pick<KeyTable, 'rows' | 'bytes' | 'heap'>>(
      `SELECT count(*)::int AS rows, pg_total_relation_size('idempotency_keys')::float8 AS bytes,
              pg_relation_size('idempotency_keys')::float8 AS heap FROM idempotency_keys`,
    );
    const size = rows[0] ?? { rows: 0, bytes: 0, heap: 0 };
    return { creations: count, seconds, rate: count / seconds, retries: counts.retries, ...size };
  } finally {
    await db.end();
  }
}

async function measureTable(
  ctx: BenchContext,
  name: string,
  creations: number,
  env: Record<string, string>,
): Promise<KeyTable> {
  const databaseUrl = await ensureDatabase(name, { fresh: true });
  const key = tenantKey(databaseUrl, 'bench-idempotency');
  const server = await startOurs({ name, bin: ctx.nodes.n24, databaseUrl, env });
  try {
    return await fill(server.url, key.apiKey, databaseUrl, creations);
  } finally {
    await stopProcess(server);
  }
}

/** Runs scenario 8 against its own databases and server processes (PostgreSQL, Node 24). */
export async function runIdempotency(ctx: BenchContext): Promise<IdempotencyResult> {
  const samples = Number(process.env.BENCH_IDEMPOTENCY_SAMPLES ?? (ctx.smoke ? 50 : ctx.quick ? 300 : 1000));
  const creations = Number(
    process.env.BENCH_IDEMPOTENCY_CREATIONS ?? (ctx.smoke ? 300 : ctx.quick ? 2_000 : 100_000),
  );
  const loadAtStart = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');
  const databaseUrl = await ensureDatabase('bench_idem', { fresh: true });
  const key = tenantKey(databaseUrl, 'bench-idempotency-latency');
  const server = await startOurs({ name: 'ours-24-idem', bin: ctx.nodes.n24, databaseUrl });
  let latency: Record<string, IdempotencyLatency>;
  let roundTrip: number;
  try {
    latency = await latencies(server.url, key.apiKey, samples, ctx.smoke ? 20 : 200);
    roundTrip = await roundTripMs(databaseUrl, samples);
  } finally {
    await stopProcess(server);
  }
  ctx.progress('idempotency: latency done');
  const defaultTtl = await measureTable(ctx, 'bench_idem', creations, {});
  ctx.progress('idempotency: default TTL table done');
  const shortTtl = await measureTable(ctx, 'bench_idem_ttl', creations, {
    IDEMPOTENCY_TTL_S: String(SHORT_TTL_S),
  });
  return {
    loadAtStart,
    latency,
    roundTrip,
    defaultTtl,
    shortTtl,
    shortTtlS: SHORT_TTL_S,
    concurrency: CONCURRENCY,
  };
}

const ms = (v: number) => v.toFixed(2);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The report's section of scenario 8. */
export function renderIdempotency(r: IdempotencyResult, table: Table): string {
  const rows = Object.entries(r.latency).map(([name, l]) => [
    `\`${name}\``,
    ms(l.p50.plain),
    ms(l.p50.keyed),
    `${l.addedP50 >= 0 ? '+' : ''}${ms(l.addedP50)}`,
    ms(l.p99.plain),
    ms(l.p99.keyed),
  ]);
  const size = (label: string, t: KeyTable) => [
    label,
    t.creations.toLocaleString('en-US'),
    t.rows.toLocaleString('en-US'),
    mib(t.bytes),
    t.rows ? Math.round(t.bytes / t.rows).toString() : 'n/a',
    Math.round(t.rate).toString(),
  ];
  return [
    '## 8. The cost of `Idempotency-Key`',
    '',
    `Sequential requests on one connection against a server on PostgreSQL, alternating without and with a fresh key (${Object.values(r.latency)[0]?.samples ?? 0} of each per operation, after ${Object.values(r.latency)[0]?.warmUp ?? 200} warm-up requests), in ms. Target: under 1 ms added at p50. A keyed write makes four more round trips to PostgreSQL than the same write without a key (BEGIN, the lock with the read of the kept response, the kept response with the sweep, COMMIT; the service's own transaction becomes a savepoint); one round trip took ${r.roundTrip === undefined ? 'n/a' : ms(r.roundTrip)} ms at p50 in this run. Load average when the scenario started: ${r.loadAtStart ?? 'n/a'} (the machine is shared; latency figures move with it).`,
    '',
    table(['Operation', 'p50 without', 'p50 with key', 'added at p50', 'p99 without', 'p99 with key'], rows),
    '',
    `Target: under 1 ms added at p50 — ${Object.values(r.latency).every((l) => l.addedP50 < 1) ? '**met**' : '**missed**'}.`,
    '',
    ...(r.note ? [r.note, ''] : []),
    `The key table after keyed \`createAccountLog\` requests from ${r.concurrency} connections: with the default TTL (24 h) every row is kept; with \`IDEMPOTENCY_TTL_S=${r.shortTtlS}\` each write sweeps up to 16 expired rows, so the table holds about ${r.shortTtlS} s of writes (rate × TTL) however many were made. MiB are the files on disk, the primary key and the expiry index included: rows the sweep removes leave space that later writes reuse (autovacuum), so with a short TTL the files keep the high-water mark of the run while the rows stay bounded; bytes/row divides the files by the live rows.`,
    '',
    table(
      ['TTL', 'creations', 'rows', 'MiB', 'bytes/row', 'creations/s'],
      [size('86,400 s (default)', r.defaultTtl), size(`${r.shortTtlS} s`, r.shortTtl)],
    ),
  ].join('\n');
}
