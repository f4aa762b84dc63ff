// Scenario 1: framework overhead of GET /v0/pages?limit=20 against a bare Fastify route, plain
// node:http (the limit) and two peer stacks; Node 24 and Node 20. Repetitions are interleaved
// (each round runs every target once) so that a noisy neighbour hits all of them alike.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hammer } from '../lib/load.mjs';
import { api, startOurs } from '../lib/ours.mjs';
import { cpuMicros, freePort, runJsonScript, startProcess, stopProcess } from '../lib/proc.mjs';
import { spread } from '../lib/stats.mjs';

const PATH = '/v0/pages?limit=20';
const SEED_PAGES = 30;

/** Gives the pages tenant SEED_PAGES pages (created through the API, so counters stay exact). */
export async function seedPages(server, apiKey) {
  const { totalCount } = await api(server.url, apiKey, 'GET', '/v0/pages?limit=1');
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

async function peer(name, bin, script, env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [new URL(`../servers/${script}`, import.meta.url).pathname];
  return startProcess({ name, bin, args, url, env: { ...env, PORT: String(port) } });
}

/** Starts every target on both Node versions; `ours24` is already running. */
async function startTargets(ctx, ours24) {
  const { n24, n20 } = ctx.nodes;
  const body = await (
    await fetch(`${ours24.url}${PATH}`, { headers: { 'x-api-key': ctx.pages.apiKey } })
  ).text();
  const bodyFile = join(tmpdir(), `bench-pages-${process.pid}.json`);
  writeFileSync(bodyFile, body);
  const env = { DATABASE_URL: ctx.databaseUrl, BODY_FILE: bodyFile };
  const targets = [{ key: 'ours', node: 24, server: ours24 }];
  for (const [node, bin] of [
    [24, n24],
    [20, n20],
  ]) {
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
      server: await peer(`fastify-${node}`, bin, 'bare-fastify.mjs', env),
    });
    targets.push({
      key: 'node-http',
      node,
      server: await peer(`node-http-${node}`, bin, 'node-http.mjs', env),
    });
    if (node === 24) {
      targets.push({ key: 'hono', node, server: await peer('hono-24', bin, 'hono.mjs', env) });
      targets.push({
        key: 'ts-rest-express',
        node,
        server: await peer('ts-rest-express-24', bin, 'ts-rest-express.mjs', env),
      });
    }
  }
  return { targets, bodyBytes: Buffer.byteLength(body) };
}

/** Checks that a target answers exactly what ours answers (same JSON, key order aside). */
async function sameJson(target, apiKey, reference) {
  const res = await fetch(`${target.server.url}${PATH}`, { headers: { 'x-api-key': apiKey } });
  const got = await res.json();
  const norm = (v) =>
    JSON.stringify(
      v,
      Object.keys(v.items[0] ?? {})
        .concat(['items', 'hasMore', 'nextCursor', 'totalCount'])
        .sort(),
    );
  if (res.status !== 200 || norm(got) !== norm(reference))
    throw new Error(`${target.server.name} answers different JSON`);
}

/** Runs scenario 1; returns per-target spreads and per-round ratios. */
export async function runOverhead(ctx, ours24) {
  const { targets, bodyBytes } = await startTargets(ctx, ours24);
  try {
    const headers = { 'x-api-key': ctx.pages.apiKey };
    const reference = await api(ours24.url, ctx.pages.apiKey, 'GET', PATH);
    for (const t of targets) if (t.key !== 'node-http') await sameJson(t, ctx.pages.apiKey, reference);
    for (const t of targets)
      await hammer({ url: `${t.server.url}${PATH}`, headers, seconds: ctx.warmupSeconds });
    const rounds = [];
    for (let r = 0; r < ctx.reps; r += 1) {
      const round = {};
      for (const t of targets) {
        const cpu0 = cpuMicros(t.server.pid);
        const run = await hammer({ url: `${t.server.url}${PATH}`, headers, seconds: ctx.loadSeconds });
        run.cpuPerRequest = (cpuMicros(t.server.pid) - cpu0) / run.total;
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

/** The read-path limit: the request's statements and JSON with `pg` alone (read-pg-worker.mjs). */
function directPg(ctx) {
  return runJsonScript(ctx.nodes.n24, new URL('./read-pg-worker.mjs', import.meta.url).pathname, {
    DATABASE_URL: ctx.databaseUrl,
    TENANT_ID: ctx.pages.tenantId,
    SECONDS: String(ctx.loadSeconds),
    CONCURRENCY: '50',
    POOL_SIZE: '10',
  });
}

function summarise(targets, rounds, bodyBytes) {
  const rows = targets.map((t) => {
    const id = `${t.key}@${t.node}`;
    const runs = rounds.map((r) => r[id]);
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
  const ratio = (a, b) => spread(rounds.filter((r) => r[a] && r[b]).map((r) => r[a].rps / r[b].rps));
  const ratios = {};
  for (const node of [24, 20]) {
    for (const other of ['fastify', 'node-http', 'hono', 'ts-rest-express']) {
      const s = ratio(`ours@${node}`, `${other}@${node}`);
      if (s.n > 0) ratios[`ours/${other}@${node}`] = s;
    }
  }
  const n24n20 = ratio('ours@24', 'ours@20');
  if (n24n20.n > 0) ratios['node24/node20 (ours)'] = n24n20;
  ratios['ours/direct-pg@24'] = ratio('ours@24', 'direct-pg@24');
  const directPg = {
    rps: spread(rounds.map((r) => r['direct-pg@24'].rps)),
    errors: rounds.reduce((n, r) => n + r['direct-pg@24'].errors, 0),
    bytes: rounds[0]?.['direct-pg@24'].bytes,
  };
  return { rows, ratios, bodyBytes, directPg };
}
