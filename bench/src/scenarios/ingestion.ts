// Scenario 3: POST /v0/account_logs with idempotency keys (each key sent twice, concurrently
// racing), 50 connections, on PostgreSQL and on PGlite, against the same inserts issued
// directly with `pg`. Afterwards the database must hold one entry per key and exact counters.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestSpec } from 'autocannon';
import type { BenchContext, SharedContext } from '../context.js';
import { cli, pool, type TenantKey, tenantKey } from '../lib/db.js';
import { hammer, type LoadRun } from '../lib/load.js';
import { startOurs } from '../lib/ours.js';
import { runJsonScript, type ServerHandle, stopProcess } from '../lib/proc.js';
import { spread } from '../lib/stats.js';
import type { Counts, IngestionCheck, IngestionResult } from '../results.js';

const CONNECTIONS = 50;
const DOMAINS = 500;

/** autocannon requests: request i carries key `${runId}-${floor(i / 2)}`, so every key comes twice. */
function logRequests(runId: string, sent: Set<string>, statuses: Counts): RequestSpec[] {
  let i = 0;
  return [
    {
      method: 'POST',
      path: '/v0/account_logs',
      setupRequest: (req) => {
        const n = i++;
        const idempotencyKey = `${runId}-${Math.floor(n / 2)}`;
        sent.add(idempotencyKey);
        const body = {
          source: 'bench',
          type: 'page-view',
          domain: `d${Math.floor(n / 2) % DOMAINS}.ingest.example`,
          payload: { n: Math.floor(n / 2) },
          idempotencyKey,
        };
        return {
          ...req,
          headers: { ...req.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        };
      },
      onResponse: (status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
      },
    },
  ];
}

/** A run of idempotent creations: the load's figures, the keys it sent and the answers by status. */
export type IngestionRun = LoadRun & { keysSent: number; statuses: Counts };

/** `ctx.loadSeconds` of idempotent creations on `server` (also scenario 10's, on each database). */
export async function viaApi(
  ctx: Pick<BenchContext, 'loadSeconds'>,
  server: { url: string },
  apiKey: string,
  label: string,
): Promise<IngestionRun> {
  const runId = `${label}-${Date.now()}`;
  const sent = new Set<string>();
  const statuses: Counts = {};
  const result = await hammer({
    url: server.url,
    headers: { 'x-api-key': apiKey },
    seconds: ctx.loadSeconds,
    connections: CONNECTIONS,
    requests: logRequests(runId, sent, statuses),
  });
  return { ...result, keysSent: sent.size, statuses };
}

/** One entry per key, no more entries than keys sent, counters equal to the rows. */
export async function verify(
  databaseUrl: string,
  tenantId: string,
  keysSent: number,
): Promise<IngestionCheck> {
  const db = pool(databaseUrl, 1);
  try {
    const { rows } = await db.query<Omit<IngestionCheck, 'duplicates' | 'countersExact' | 'withinSent'>>(
      `SELECT (SELECT count(*)::int FROM account_activity WHERE tenant_id = $1) AS entries,
              (SELECT count(DISTINCT idempotency_key)::int FROM account_activity WHERE tenant_id = $1) AS keys,
              (SELECT coalesce(sum(account_logs_count), 0)::int FROM accounts WHERE tenant_id = $1) AS counted,
              (SELECT count(*)::int FROM accounts WHERE tenant_id = $1) AS accounts,
              (SELECT count::int FROM tenant_counters WHERE tenant_id = $1 AND scope = 'accounts') AS accounts_counter`,
      [tenantId],
    );
    const v = rows[0];
    if (!v) throw new Error('no counts of the ingestion tenant');
    return {
      ...v,
      duplicates: v.entries - v.keys,
      countersExact: v.counted === v.entries && v.accounts === v.accounts_counter,
      withinSent: v.keys <= keysSent,
    };
  } finally {
    await db.end();
  }
}

async function pgliteServer(
  ctx: BenchContext,
): Promise<{ server: ServerHandle; key: TenantKey; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  cli(['migrate'], { DATABASE_URL: '', DATA_DIR: dataDir });
  const key = tenantKey(undefined, 'bench-ingest', { DATABASE_URL: '', DATA_DIR: dataDir });
  const server = await startOurs({ name: 'ours-24-pglite', bin: ctx.nodes.n24, dataDir });
  return { server, key, dataDir };
}

/** The direct `pg` baseline's figures (ingestion-pg-worker.ts). */
interface PgRun {
  rps: number;
  total: number;
  errors: number;
}

/** One round of scenario 3. */
interface Round {
  api: IngestionRun;
  check: IngestionCheck;
  pg: PgRun;
  pglite: IngestionRun;
}

/** Runs scenario 3: rounds of (API on PostgreSQL, direct pg, API on PGlite). */
export async function runIngestion(ctx: SharedContext, ours24: ServerHandle): Promise<IngestionResult> {
  const lite = await pgliteServer(ctx);
  const rounds: Round[] = [];
  try {
    for (let r = 0; r < ctx.reps; r += 1) {
      const key = tenantKey(ctx.databaseUrl, `bench-ingest-${Date.now()}-${r}`);
      const api = await viaApi(ctx, ours24, key.apiKey, `api${r}`);
      const check = await verify(ctx.databaseUrl, key.tenantId, api.keysSent);
      const direct = tenantKey(ctx.databaseUrl, `bench-ingest-pg-${Date.now()}-${r}`);
      const pgRun = await runJsonScript<PgRun>(
        ctx.nodes.n24,
        new URL('./ingestion-pg-worker.js', import.meta.url).pathname,
        {
          DATABASE_URL: ctx.databaseUrl,
          TENANT_ID: direct.tenantId,
          RUN_ID: `pg${r}-${Date.now()}`,
          SECONDS: String(ctx.loadSeconds),
          CONCURRENCY: String(CONNECTIONS),
          DOMAINS: String(DOMAINS),
        },
      );
      const pglite = await viaApi(ctx, lite.server, lite.key.apiKey, `lite${r}`);
      rounds.push({ api, check, pg: pgRun, pglite });
      ctx.progress(`ingestion round ${r + 1}/${ctx.reps}`);
    }
  } finally {
    await stopProcess(lite.server);
    rmSync(lite.dataDir, { recursive: true, force: true });
  }
  return summarise(rounds);
}

function summarise(rounds: Round[]): IngestionResult {
  const fails = (x: LoadRun) => x.non2xx + x.errors;
  return {
    connections: CONNECTIONS,
    domains: DOMAINS,
    api: spread(rounds.map((r) => r.api.rps)),
    pg: spread(rounds.map((r) => r.pg.rps)),
    pglite: spread(rounds.map((r) => r.pglite.rps)),
    ratio: spread(rounds.map((r) => r.api.rps / r.pg.rps)),
    apiP99: spread(rounds.map((r) => r.api.p99)),
    errors: rounds.reduce((n, r) => n + fails(r.api), 0),
    pgErrors: rounds.reduce((n, r) => n + r.pg.errors, 0),
    pgliteErrors: rounds.reduce((n, r) => n + fails(r.pglite), 0),
    duplicates: rounds.reduce((n, r) => n + r.check.duplicates, 0),
    countersExact: rounds.every((r) => r.check.countersExact && r.check.withinSent),
    statuses: rounds.map((r) => r.api.statuses),
    checks: rounds.map((r) => r.check),
  };
}
