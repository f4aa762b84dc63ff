import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createClient } from '@customer-api/client';
import {
  createKey,
  freePort,
  runCli,
  SERVER_CLI,
  type ServerProcess,
  spawnTracked,
  startServer,
  type TrackedProcess,
  waitUntil,
} from '@customer-api/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Attempt, type Load, type LoadResult, startLoad, type Worker } from '../ha/load.js';
import { type Receiver, startReceiver } from '../lib/receiver.js';
import { waitDelivered } from '../lib/webhook-load.js';
import { CitusCluster } from './cluster.js';

/** `short` (CI: migrate and one shard move under load) or `full`. Set by deploy/citus/run.sh. */
const PROFILE = process.env.CITUS_PROFILE === 'short' ? 'short' : 'full';
/** Tenants of the load, each with its own key, page, audience and subscription. */
const TENANTS = 24;
/** The tenant whose shard group is moved: it gets a worker on each API process. */
const BUSY = 0;
/** How long a worker stays dead. */
const LOSS_MS = 10_000;
/** The SDK's timeout in the load: no exchange may take longer. */
const REQUEST_TIMEOUT_MS = 20_000;

const totals = {
  workers: 0,
  moves: 0,
  rebalanced: 0,
  writes: 0,
  lost: 0,
  duplicated: 0,
  events: 0,
  undelivered: 0,
  other5xx: 0,
  served: 0,
  tenants: TENANTS,
};

let cluster: CitusCluster | undefined;
let receiver: Receiver | undefined;
const apis: ServerProcess[] = [];
let dispatcher: TrackedProcess | undefined;
let env: Record<string, string> = {};
/** Tenant names, in load order; `workers[i]` is tenant i's. */
const tenants: string[] = [];
let workers: Worker[] = [];
let tenantIds = new Map<string, string>();

beforeAll(async () => {
  const c = CitusCluster.fromEnv();
  cluster = c;
  receiver = await startReceiver();
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    SECRETS_ENCRYPTION_KEYS: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    DATABASE_URL: c.databaseUrl,
    RATE_LIMIT_MAX: '100000000',
    TENANT_DB_CONCURRENCY: '8',
    DATABASE_STATEMENT_TIMEOUT_MS: '2000',
    // Short, so that keys are looked up again (a write to a reference table) while a worker is down.
    AUTH_CACHE_TTL_S: '3',
    WEBHOOKS_DISPATCHER: '0',
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOKS_TIMEOUT_MS: '2000',
    WEBHOOKS_RETRY_SCHEDULE: '1,1,1,1,2,2,2,2,2,2,5,5,5,5,5',
  };
  await runCli(env, ['migrate']);
  for (let i = 0; i < 2; i += 1) {
    const api = await startServer({ port: await freePort(), env, outputLimit: 400_000 });
    collectErrors(`api${i + 1}`, api);
    apis.push(api);
  }
  const dispatchPort = await freePort();
  dispatcher = spawnTracked({
    command: process.execPath,
    args: [SERVER_CLI, 'dispatch'],
    env: { ...env, PORT: String(await freePort()), DISPATCH_PORT: String(dispatchPort) },
    outputLimit: 400_000,
  });
  collectErrors('dispatch', dispatcher);
  const health = `http://127.0.0.1:${dispatchPort}/healthz`;
  await waitUntil(dispatcher, `${health} answered`, async () => (await fetch(health)).ok, {
    timeoutMs: 60_000,
  });

  await setUpTenants().catch((err: unknown) => {
    throw new Error(`setting up the tenants failed: ${String(err)}\n${errorLines()}`, { cause: err });
  });
}, 300_000);

/** The tenants: a key, a subscription to the receiver, a page and an audience each. */
async function setUpTenants(): Promise<void> {
  const run = Date.now().toString(36);
  for (let i = 0; i < TENANTS; i += 1) tenants.push(`citus-${run}-${i}`);
  const keys: string[] = [];
  // A few `keys create` at a time: each is a Node process.
  for (let i = 0; i < TENANTS; i += 4) {
    keys.push(...(await Promise.all(tenants.slice(i, i + 4).map((tenant) => createKey(env, tenant)))));
  }
  workers = await Promise.all(
    keys.map(async (apiKey, i) => {
      const client = createClient({ baseUrl: apiOf(i).url, apiKey, logLevel: 'off' });
      await client.createWebhookSubscription({ body: { url: (receiver as Receiver).url } });
      const page = await client.createPage({
        body: { name: 'Citus versions', title: 'Citus', pageContext: 'x', brandId: 'b', pageType: 'inbound' },
      });
      const audience = await client.createAudience({ params: { page_id: page.pageId }, body: {} });
      await client.close();
      return { apiKey, pageId: page.pageId, audienceId: audience.audienceId };
    }),
  );
  tenantIds = await requireCluster().tenantIds(tenants);
}

/** Error lines (pino level 50) of the server's processes, one per process and message, as they came. */
const errorsSeen = new Map<string, { line: string; count: number }>();
/** Warning messages of the server's processes and how often each came. */
const warningsSeen = new Map<string, number>();

/** Records `proc`'s error lines under `name` while it runs (its kept output is only its tail). */
function collectErrors(name: string, proc: TrackedProcess): void {
  let partial = '';
  const read = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const message =
        /"message":"([^"]{0,200})/.exec(line)?.[1] ?? /"msg":"([^"]{0,200})/.exec(line)?.[1] ?? '';
      if (line.includes('"level":40')) {
        // Warnings (a 503's cause among them): counted by message, ports and ids aside.
        const key = `${name}: ${message.replace(/[0-9]+/g, 'N')}`;
        warningsSeen.set(key, (warningsSeen.get(key) ?? 0) + 1);
      }
      if (!line.includes('"level":50')) continue;
      const key = `${name}: ${message}`;
      const seen = errorsSeen.get(key);
      if (seen) seen.count += 1;
      else errorsSeen.set(key, { line: `${name}: ${line.slice(0, 1500)}`, count: 1 });
    }
  };
  proc.child.stdout?.on('data', read);
  proc.child.stderr?.on('data', read);
}

/** The distinct errors the server's processes logged, with how often, for a failure's message. */
function errorLines(): string {
  return [...errorsSeen.values()].map((e) => `${e.count}x ${e.line}`).join('\n');
}

afterAll(async () => {
  totals.workers = (await cluster?.workers().catch(() => []))?.length ?? 0;
  const line =
    `citus: workers ${totals.workers}, moves ${totals.moves}, rebalanced ${totals.rebalanced} shards; ` +
    `acknowledged writes ${totals.writes}, lost ${totals.lost}, duplicated ${totals.duplicated}; ` +
    `events ${totals.events}, undelivered ${totals.undelivered}; ` +
    `5xx other than 503: ${totals.other5xx}; ` +
    `tenants served through a worker's loss ${totals.served} of ${totals.tenants}`;
  console.log(line);
  if (process.env.CITUS_SUMMARY_FILE) await appendFile(process.env.CITUS_SUMMARY_FILE, `${line}\n`);
  await Promise.all(apis.map((api) => api.stop(10_000)));
  await dispatcher?.stop(10_000);
  await receiver?.close();
  await cluster?.close();
}, 120_000);

/** Tenant i's API process: tenants alternate between the two. */
function apiOf(i: number): ServerProcess {
  return apis[i % apis.length] as ServerProcess;
}

function requireCluster(): CitusCluster {
  if (!cluster) throw new Error('the cluster did not start');
  return cluster;
}

function tenantId(i: number): string {
  const id = tenantIds.get(tenants[i] as string);
  if (!id) throw new Error(`tenant ${tenants[i]} has no id`);
  return id;
}

/** The load of every tenant: one worker each on its API process, and one more for the busy tenant on the other. */
interface TenantLoads {
  byTenant: Load[][];
  stop(): Promise<LoadResult[][]>;
}

function startTenantLoads(prefix: string): TenantLoads {
  const byTenant = workers.map((worker, i) => {
    const loads = [startLoad(apiOf(i).url, `${prefix}-t${i}-a`, [worker])];
    if (i === BUSY) loads.push(startLoad(apiOf(i + 1).url, `${prefix}-t${i}-b`, [worker]));
    return loads;
  });
  return {
    byTenant,
    stop: () => Promise.all(byTenant.map((loads) => Promise.all(loads.map((l) => l.stop())))),
  };
}

const ok = (a: Attempt) => a.status >= 200 && a.status < 300;

/** When each step of the scenario began (`performance.now()`), to say where the answers other than 2xx came. */
const phases: { name: string; at: number }[] = [];

function phase(name: string): void {
  phases.push({ name, at: performance.now() });
}

/** Per step: exchanges, 503s and other 5xx. */
function byPhase(attempts: Attempt[]): string {
  return phases
    .map((p, i) => {
      const end = phases[i + 1]?.at ?? Number.POSITIVE_INFINITY;
      const mine = attempts.filter((a) => a.at >= p.at && a.at < end);
      const other = mine.filter((a) => a.status >= 500 && a.status !== 503).length;
      return `${p.name} ${mine.length} exchanges, ${mine.filter((a) => a.status === 503).length} 503, ${other} other 5xx`;
    })
    .join('; ');
}

/** Attempts of tenant i answered 2xx that ended in [from, to]. */
function servedBetween(loads: TenantLoads, i: number, from: number, to: number): number {
  return (loads.byTenant[i] as Load[])
    .flatMap((l) => l.attempts)
    .filter((a) => ok(a) && a.at + a.ms >= from && a.at + a.ms <= to).length;
}

/** Waits until every tenant got `count` more successful answers than it had when called. */
async function everyTenantServed(loads: TenantLoads, count = 3, timeoutMs = 120_000): Promise<void> {
  const from = performance.now();
  await until(async () => {
    const now = performance.now();
    return workers.every((_, i) => servedBetween(loads, i, from, now) >= count);
  }, timeoutMs).catch((err: unknown) => {
    const now = performance.now();
    const unserved = workers.flatMap((_, i) => {
      if (servedBetween(loads, i, from, now) >= count) return [];
      const statuses = new Map<number, number>();
      for (const a of (loads.byTenant[i] as Load[]).flatMap((l) => l.attempts))
        if (a.at >= from) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      return [`${tenants[i]} (${[...statuses].map(([st, n]) => `${n}x ${st}`).join(', ') || 'no exchange'})`];
    });
    throw new Error(`tenants not served within ${timeoutMs} ms: ${unserved.join('; ')}`, { cause: err });
  });
}

/** Moves the busy tenant's shard group to another worker under load. */
async function moveBusyTenant(c: CitusCluster): Promise<void> {
  const before = await c.placementOf(tenantId(BUSY));
  const to = (await c.workers()).find((port) => port !== before.port);
  if (to === undefined) throw new Error('no other worker to move to');
  const started = performance.now();
  await c.moveShard(before.shardid, before.port, to);
  totals.moves += 1;
  const after = await c.placementOf(tenantId(BUSY));
  console.log(
    `[citus] moved shard ${before.shardid} of ${tenants[BUSY]} from :${before.port} to :${after.port} ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  expect(after.port).toBe(to);
}

/** Adds a worker and rebalances onto it under load; counts the shards that moved. */
async function addWorkerAndRebalance(c: CitusCluster): Promise<void> {
  console.log(`[citus] ${(await c.script('add')).trim()}`);
  const before = await c.distributedPlacements();
  const started = performance.now();
  await c.rebalance();
  const after = await c.distributedPlacements();
  const moved = [...before].filter(([shard, port]) => after.get(shard) !== port).length;
  totals.rebalanced += moved;
  const ports = await c.workers();
  const perWorker = ports.map((port) => `:${port} ${[...after.values()].filter((p) => p === port).length}`);
  console.log(
    `[citus] rebalanced ${moved} shards in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `shards per worker: ${perWorker.join(', ')}`,
  );
  expect(moved).toBeGreaterThan(0);
}

/**
 * Kills worker `n` for {@link LOSS_MS} and starts it again; counts the tenants served during the
 * loss and checks that every tenant whose shards are elsewhere was.
 */
async function loseWorker(c: CitusCluster, loads: TenantLoads, n: number): Promise<void> {
  const port = c.workerPort(n);
  const placements = await Promise.all(workers.map((_, i) => c.placementOf(tenantId(i))));
  // The window is while the worker was surely down: from its port closing to its start.
  await c.script('kill', String(n));
  const killedAt = performance.now();
  await new Promise((r) => setTimeout(r, LOSS_MS));
  const startedAt = performance.now();
  await c.script('start', String(n));
  const onDead = placements.flatMap((p, i) => (p.port === port ? [i] : []));
  const served = workers.map((_, i) => servedBetween(loads, i, killedAt, startedAt) > 0);
  totals.served += served.filter(Boolean).length;
  const window = (loads.byTenant.flat() as Load[])
    .flatMap((l) => l.attempts)
    .filter((a) => a.at >= killedAt && a.at <= startedAt);
  console.log(
    `[citus] worker ${n} (:${port}) down ${((startedAt - killedAt) / 1000).toFixed(1)} s holding ` +
      `${onDead.length} of ${TENANTS} tenants; served through the loss: ${served.filter(Boolean).length}; ` +
      `exchanges in the window: ${window.filter(ok).length} 2xx, ${window.filter((a) => a.status === 503).length} 503`,
  );
  const unserved = workers.flatMap((_, i) => (!onDead.includes(i) && !served[i] ? [tenants[i]] : []));
  expect(unserved, 'tenants on the live workers that got no 2xx during the loss').toEqual([]);
}

/** Checks what the loads got and left behind on the coordinator and at the receiver; adds to the totals. */
async function verify(c: CitusCluster, results: LoadResult[]): Promise<void> {
  const pages = new Map<string, string>();
  for (const r of results) for (const [name, id] of r.pages) pages.set(id, name);
  const versions = results.flatMap((r) => r.versions);
  const attempts = results.flatMap((r) => r.attempts);
  const problems = results.flatMap((r) => r.problems);
  const ids = [...tenantIds.values()];
  const stored = await c.query<{ id: string }>(
    'SELECT id FROM pages WHERE tenant_id = ANY($1) AND id = ANY($2)',
    [ids, [...pages.keys()]],
  );
  const storedVersions = await c.query<{ id: string }>(
    'SELECT id FROM audience_versions WHERE tenant_id = ANY($1) AND id = ANY($2)',
    [ids, versions],
  );
  const present = new Set([...stored, ...storedVersions].map((r) => r.id));
  const lost = [...pages.keys(), ...versions].filter((id) => !present.has(id));
  const duplicates = await c.query<{ tenant_id: string; name: string; copies: number }>(
    `SELECT tenant_id, name, count(*)::int AS copies FROM pages WHERE tenant_id = ANY($1)
     GROUP BY tenant_id, name HAVING count(*) > 1`,
    [ids],
  );
  const undelivered = await waitForDeliveries(versions);
  const other5xx = attempts.filter((a) => a.status >= 500 && a.status !== 503);
  const slowest = Math.max(0, ...attempts.map((a) => a.ms));
  totals.writes += pages.size + versions.length;
  totals.lost += lost.length;
  totals.duplicated += duplicates.length;
  totals.events += versions.length;
  totals.undelivered += undelivered.length;
  totals.other5xx += other5xx.length;
  console.log(
    `[citus] ${attempts.length} exchanges, ${pages.size} pages and ${versions.length} versions acknowledged, ` +
      `${attempts.filter((a) => a.status === 503).length} answered 503, ` +
      `${results.reduce((n, r) => n + r.givenUp, 0)} calls given up, slowest exchange ${Math.round(slowest)} ms`,
  );
  console.log(`[citus] by step: ${byPhase(attempts)}`);
  if (warningsSeen.size > 0)
    console.log(
      `[citus] warnings the server logged:\n${[...warningsSeen].map(([m, n]) => `${n}x ${m}`).join('\n')}`,
    );
  if (errorsSeen.size > 0) console.log(`[citus] errors the server logged:\n${errorLines()}`);
  const errors = errorLines();
  expect.soft(problems.slice(0, 10), errors).toEqual([]);
  expect.soft(lost.slice(0, 10)).toEqual([]);
  expect.soft(duplicates).toEqual([]);
  expect.soft(undelivered.length, `undelivered events; the dispatcher's errors:\n${errors}`).toBe(0);
  expect.soft(other5xx.length).toBe(0);
  expect.soft(slowest).toBeLessThan(REQUEST_TIMEOUT_MS);
  expect(pages.size).toBeGreaterThan(0);
}

describe(`Citus cluster (${PROFILE})`, () => {
  it(
    PROFILE === 'short'
      ? 'serves tenants through a shard move'
      : "serves tenants through a shard move, a new worker's rebalance and a worker's loss",
    async () => {
      const c = requireCluster();
      phase('warm-up');
      const loads = startTenantLoads(`citus-${Date.now().toString(36)}`);
      let results: LoadResult[][];
      try {
        await everyTenantServed(loads);
        phase('move');
        await moveBusyTenant(c);
        phase('after the move');
        await everyTenantServed(loads);
        if (PROFILE === 'full') {
          phase('rebalance');
          await addWorkerAndRebalance(c);
          phase('after the rebalance');
          await everyTenantServed(loads);
          phase('loss');
          await loseWorker(c, loads, 1);
          phase('after the loss');
          await everyTenantServed(loads);
        }
        phase('stop');
        results = await loads.stop();
      } catch (err) {
        // What the load got so far, and the server's warnings and errors, say why the step failed.
        phase('stop');
        await verify(c, (await loads.stop()).flat()).catch(() => {});
        throw err;
      }
      await verify(c, results.flat());
    },
  );
});

/**
 * Waits until every version's event reached the receiver (at most five minutes, and gives up
 * sooner once two minutes passed without a single delivery); returns the ids still missing.
 */
async function waitForDeliveries(versions: string[]): Promise<string[]> {
  const received = (receiver as Receiver).versions;
  const deadline = Date.now() + 300_000;
  let seen = received.size;
  let progressAt = Date.now();
  for (;;) {
    const missing = await waitDelivered(received, versions, 5_000);
    if (missing.length === 0 || Date.now() > deadline) return missing;
    if (received.size > seen) {
      seen = received.size;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > 120_000) {
      return missing;
    }
  }
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
