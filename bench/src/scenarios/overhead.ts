// Scenario 1: framework overhead of GET /v0/pages?limit=20 against a bare Fastify route, plain
// node:http (the limit) and two peer stacks; Node 24 and Node 20. Repetitions are interleaved
// (each round runs every target once) so that a noisy neighbour hits all of them alike.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, SharedContext } from '../context.js';
import { hammer, type LoadRun } from '../lib/load.js';
import { api, startOurs } from '../lib/ours.js';
import {
  cpuMicros,
  freePort,
  runJsonScript,
  type ServerHandle,
  startProcess,
  stopProcess,
} from '../lib/proc.js';
import { spread } from '../lib/stats.js';
import type { OverheadResult, OverheadRow, Spread } from '../results.js';

const PATH = '/v0/pages?limit=20';
const SEED_PAGES = 30;

/** Gives the pages tenant SEED_PAGES pages (created through the API, so counters stay exact). */
export async function seedPages(server: ServerHandle, apiKey: string): Promise<void> {
  const { totalCount } = await api<{ totalCount: number }>(server.url, apiKey, 'GET', '/v0/pages?limit=1');
  for (let i = totalCount; i < SEED_PAGES; i += 1) {
    await api(server.url, apiKey, 'POST', '/v0/pages', {
      name: `bench-page-${i}`,
      title: `Benchmark page ${i}: a landing page with a realistic amount of content`,
      pageContext: 'A page for the overhead benchmark; its JSON is about 1 KB.',
      brandId: 'brand-bench',
      pageType: 'inbound',
    });
  }
}

async function peer(
  name: string,
  bin: string,
  script: string,
  env: Record<string, string>,
): Promise<ServerHandle> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [new URL(`../servers/${script}`, import.meta.url).pathname];
  return startProcess({ name, bin, args, url, env: { ...env, PORT: String(port) } });
}

/** A server of scenario 1: which stack, on which Node. */
interface Target {
  key: string;
  node: number;
  server: ServerHandle;
}

/** One load of one target, with the server's CPU per request. */
type TargetRun = LoadRun & { cpuPerRequest: number };
/** The read-path limit's figures (read-pg-worker.ts). */
interface DirectPgRun {
  rps: number;
  total: number;
  errors: number;
  bytes: number;
}
/** One round: each target's run by `key@node`, and the read-path limit's. */
type Round = Record<string, TargetRun | undefined> & { 'direct-pg@24'?: DirectPgRun };

/** Starts every target on both Node versions; `ours24` is already running. */
async function startTargets(
  ctx: SharedContext,
  ours24: ServerHandle,
): Promise<{ targets: Target[]; bodyBytes: number }> {
  const { n24, n20 } = ctx.nodes;
  const body = await (
    await fetch(`${ours24.url}${PATH}`, { headers: { 'x-api-key': ctx.pages.apiKey } })
  ).text();
  const bodyFile = join(tmpdir(), `bench-pages-${process.pid}.json`);
  writeFileSync(bodyFile, body);
  const env = { DATABASE_URL: ctx.databaseUrl, BODY_FILE: bodyFile };
  const targets: Target[] = [{ key: 'ours', node: 24, server: ours24 }];
  const bins: [number, string | undefined][] = [
    [24, n24],
    [20, n20],
  ];
  for (const [node, bin] of bins) {
    if (!bin) continue; // a quick run on a machine without Node 20
    if (node === 20)
      targets.push({
        key: 'ours',
        node,
        server: await startOurs({ name: 'ours-20', bin, databaseUrl: ctx.databaseUrl }),
      });
    targets.push({
      key: 'fastify',
      node,
      server: await peer(`fastify-${node}`, bin, 'bare-fastify.js', env),
    });
    targets.push({
      key: 'node-http',
      node,
      server: await peer(`node-http-${node}`, bin, 'node-http.js', env),
    });
    if (node === 24) {
      targets.push({ key: 'hono', node, server: await peer('hono-24', bin, 'hono.js', env) });
      targets.push({
        key: 'ts-rest-express',
        node,
        server: await peer('ts-rest-express-24', bin, 'ts-rest-express.js', env),
      });
    }
  }
  return { targets, bodyBytes: Buffer.byteLength(body) };
}

/** Checks that a target answers exactly what ours answers (same JSON, key order aside). */
async function sameJson(target: Target, apiKey: string, reference: PagesJson): Promise<void> {
  const res = await fetch(`${target.server.url}${PATH}`, { headers: { 'x-api-key': apiKey } });
  const got = (await res.json()) as PagesJson;
  const norm = (v: PagesJson) =>
    JSON.stringify(
      v,
      Object.keys(v.items[0] ?? {})
        .concat(['items', 'hasMore', 'nextCursor', 'totalCount'])
        .sort(),
    );
  if (res.status !== 200 || norm(got) !== norm(reference))
    throw new Error(`${target.server.name} answers different JSON`);
}

/** What the servers answer to {@link PATH}, as far as {@link sameJson} compares it. */
interface PagesJson {
  items: Record<string, unknown>[];
}

/** Runs scenario 1; returns per-target spreads and per-round ratios. */
export async function runOverhead(ctx: SharedContext, ours24: ServerHandle): Promise<OverheadResult> {
  const { targets, bodyBytes } = await startTargets(ctx, ours24);
  try {
    const headers = { 'x-api-key': ctx.pages.apiKey };
    const reference = await api<PagesJson>(ours24.url, ctx.pages.apiKey, 'GET', PATH);
    for (const t of targets) if (t.key !== 'node-http') await sameJson(t, ctx.pages.apiKey, reference);
    for (const t of targets)
      await hammer({ url: `${t.server.url}${PATH}`, headers, seconds: ctx.warmupSeconds });
    const rounds: Round[] = [];
    for (let r = 0; r < ctx.reps; r += 1) {
      const round: Round = {};
      for (const t of targets) {
        const cpu0 = cpuMicros(t.server.pid);
        const load = await hammer({ url: `${t.server.url}${PATH}`, headers, seconds: ctx.loadSeconds });
        const run = { ...load, cpuPerRequest: (cpuMicros(t.server.pid) - cpu0) / load.total };
        round[`${t.key}@${t.node}`] = run;
        ctx.progress(`overhead round ${r + 1}/${ctx.reps}: ${t.key} on Node ${t.node}`);
      }
      round['direct-pg@24'] = await directPg(ctx);
      ctx.progress(`overhead round ${r + 1}/${ctx.reps}: the same statements with pg`);
      rounds.push(round);
    }
    return summarise(targets, rounds, bodyBytes);
  } finally {
    for (const t of targets) if (t.server !== ours24) await stopProcess(t.server);
  }
}

/** The read-path limit: the request's statements and JSON with `pg` alone (read-pg-worker.ts). */
function directPg(ctx: SharedContext & BenchContext): Promise<DirectPgRun> {
  return runJsonScript<DirectPgRun>(ctx.nodes.n24, new URL('./read-pg-worker.js', import.meta.url).pathname, {
    DATABASE_URL: ctx.databaseUrl,
    TENANT_ID: ctx.pages.tenantId,
    SECONDS: String(ctx.loadSeconds),
    CONCURRENCY: '50',
    POOL_SIZE: '10',
  });
}

function summarise(targets: Target[], rounds: Round[], bodyBytes: number): OverheadResult {
  const rows = targets.map((t): OverheadRow => {
    const id = `${t.key}@${t.node}`;
    const runs = rounds.map((r) => r[id]).filter((x): x is TargetRun => x !== undefined);
    return {
      id,
      key: t.key,
      node: t.node,
      rps: spread(runs.map((x) => x.rps)),
      p50: spread(runs.map((x) => x.p50)),
      p99: spread(runs.map((x) => x.p99)),
      cpu: spread(runs.map((x) => x.cpuPerRequest)),
      failures: runs.reduce((n, x) => n + x.non2xx + x.errors, 0),
    };
  });
  const ratio = (a: string, b: string) =>
    spread(
      rounds.flatMap((r) => {
        const [x, y] = [r[a], r[b]];
        return x && y ? [x.rps / y.rps] : [];
      }),
    );
  const ratios: Record<string, Spread> = {};
  for (const node of [24, 20]) {
    for (const other of ['fastify', 'node-http', 'hono', 'ts-rest-express']) {
      const s = ratio(`ours@${node}`, `${other}@${node}`);
      if (s.n > 0) ratios[`ours/${other}@${node}`] = s;
    }
  }
  const n24n20 = ratio('ours@24', 'ours@20');
  if (n24n20.n > 0) ratios['node24/node20 (ours)'] = n24n20;
  ratios['ours/direct-pg@24'] = ratio('ours@24', 'direct-pg@24');
  const direct = rounds.map((r) => r['direct-pg@24']).filter((x): x is DirectPgRun => x !== undefined);
  const directPg = {
    rps: spread(direct.map((x) => x.rps)),
    errors: direct.reduce((n, x) => n + x.errors, 0),
    bytes: rounds[0]?.['direct-pg@24']?.bytes,
  };
  return { rows, ratios, bodyBytes, directPg };
}
