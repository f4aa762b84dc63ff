// Scenario 2: one tenant with 1,000,000 accounts (others with 100,000 and 10,000): first page,
// a page 500 pages deep and GET /v0/accounts/{id}, p50/p99 per size, with exact totalCount.
import { createHash } from 'node:crypto';
import type { SharedContext } from '../context.js';
import { pool, type TenantKey } from '../lib/db.js';
import { type LoadRun, latency } from '../lib/load.js';
import { api } from '../lib/ours.js';
import type { ServerHandle } from '../lib/proc.js';
import { spread } from '../lib/stats.js';
import type { ScaleResult, ScaleRow } from '../results.js';
import { loadScaleTenants, scaleTenant } from './scale-load.js';

const FULL_SIZES = [10_000, 100_000, 1_000_000];
const DEEP_PAGES = 500;
/** A smoke run's tenants: small enough to load in a second, deep enough for its deep page. */
const SMOKE_SIZES = [1_000, 2_000];
const SMOKE_DEEP_PAGES = 20;
const CONNECTIONS = 4;

/** The id of account `i` of a tenant {@link loadScaleTenants} loaded. */
export const accountId = (tenantId: string, i: number): string =>
  `account_0${createHash('md5').update(`${tenantId}:${i}`).digest('hex').slice(0, 25)}`;

/** Quick runs load 10k and 100k, and measure 1M too when an earlier full run left it loaded. */
async function sizesFor(ctx: SharedContext): Promise<number[]> {
  if (ctx.smoke) return SMOKE_SIZES;
  if (!ctx.quick) return FULL_SIZES;
  const db = pool(ctx.databaseUrl, 1);
  try {
    const { rows } = await db.query<{ count: string }>(
      `SELECT c.count FROM tenant_counters c JOIN tenants t ON t.id = c.tenant_id
       WHERE t.name = $1 AND c.scope = 'accounts'`,
      [scaleTenant(1_000_000)],
    );
    return Number(rows[0]?.count) === 1_000_000 ? FULL_SIZES : FULL_SIZES.slice(0, 2);
  } finally {
    await db.end();
  }
}

/** The cursor of page `deepPages` (walked page by page, as a client would). */
async function deepCursor(url: string, apiKey: string, deepPages: number): Promise<string> {
  let cursor: string | null = null;
  for (let page = 1; page < deepPages; page += 1) {
    const q = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const body: { nextCursor: string | null } = await api(url, apiKey, 'GET', `/v0/accounts?limit=20${q}`);
    cursor = body.nextCursor;
    if (!cursor) throw new Error(`only ${page} pages`);
  }
  if (!cursor) throw new Error('no deep page');
  return cursor;
}

/** One round's loads at one size. */
type SizeRound = Record<ScaleRow['kind'], LoadRun>;

async function measureSize(
  ctx: SharedContext,
  server: ServerHandle,
  size: number,
  key: TenantKey,
  cursor: string,
): Promise<SizeRound> {
  const headers = { 'x-api-key': key.apiKey };
  const seconds = ctx.smoke ? 0.3 : ctx.quick ? 0.5 : 4;
  const run = (path: () => string) =>
    latency({ url: server.url, headers, seconds, connections: CONNECTIONS, path });
  const first = await run(() => '/v0/accounts?limit=20');
  const deep = await run(() => `/v0/accounts?limit=20&cursor=${encodeURIComponent(cursor)}`);
  const byId = await run(
    () => `/v0/accounts/${accountId(key.tenantId, 1 + Math.floor(Math.random() * size))}`,
  );
  return { first, deep, byId };
}

/** Runs scenario 2 against our Node 24 server. */
export async function runScale(ctx: SharedContext, server: ServerHandle): Promise<ScaleResult> {
  const sizes = await sizesFor(ctx);
  const deepPages = ctx.smoke ? SMOKE_DEEP_PAGES : DEEP_PAGES;
  const { tenants, loadSeconds } = await loadScaleTenants(ctx.databaseUrl, sizes, ctx.progress);
  const cursors: Record<number, string> = {};
  const totals: Record<number, number> = {};
  for (const size of sizes) {
    const key = tenants[size];
    if (!key) throw new Error(`no tenant of ${size} accounts`);
    const first: { totalCount: number } = await api(server.url, key.apiKey, 'GET', '/v0/accounts?limit=20');
    totals[size] = first.totalCount;
    if (first.totalCount !== size) throw new Error(`totalCount ${first.totalCount} for ${size} accounts`);
    cursors[size] = await deepCursor(server.url, key.apiKey, deepPages);
  }
  const rounds: Record<number, SizeRound>[] = [];
  for (let r = 0; r < ctx.reps; r += 1) {
    const round: Record<number, SizeRound> = {};
    for (const size of sizes) {
      const key = tenants[size];
      const cursor = cursors[size];
      if (!key || !cursor) throw new Error(`no tenant of ${size} accounts`);
      round[size] = await measureSize(ctx, server, size, key, cursor);
      ctx.progress(`scale round ${r + 1}/${ctx.reps}: ${size.toLocaleString('en')} accounts`);
    }
    rounds.push(round);
  }
  return summarise(sizes, rounds, { loadSeconds, totals, deepPages });
}

function summarise(
  sizes: number[],
  rounds: Record<number, SizeRound>[],
  extra: Pick<ScaleResult, 'loadSeconds' | 'totals' | 'deepPages'>,
): ScaleResult {
  const kinds = ['first', 'deep', 'byId'] as const;
  const rows: ScaleRow[] = [];
  const at = (round: Record<number, SizeRound>, size: number): SizeRound => {
    const figures = round[size];
    if (!figures) throw new Error(`no figures of ${size} accounts`);
    return figures;
  };
  for (const size of sizes) {
    for (const kind of kinds) {
      const runs = rounds.map((r) => at(r, size)[kind]);
      rows.push({
        size,
        kind,
        p50: spread(runs.map((x) => x.p50)),
        p99: spread(runs.map((x) => x.p99)),
        rps: spread(runs.map((x) => x.rps)),
        failures: runs.reduce((n, x) => n + x.non2xx + x.errors, 0),
      });
    }
  }
  const small = sizes[0] ?? 0;
  const big = sizes.at(-1) ?? 0;
  const ratio = (f: (round: Record<number, SizeRound>) => number) => spread(rounds.map(f));
  const ratios = {
    [`first page p50, ${big} / ${small}`]: ratio((r) => at(r, big).first.p50 / at(r, small).first.p50),
    [`deep page p50 / first page p50, ${big}`]: ratio((r) => at(r, big).deep.p50 / at(r, big).first.p50),
    [`GET account p50, ${big} / ${small}`]: ratio((r) => at(r, big).byId.p50 / at(r, small).byId.p50),
  };
  return { sizes, rows, ratios, connections: CONNECTIONS, ...extra };
}
