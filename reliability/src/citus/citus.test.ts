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
import type { Load, LoadResult, Worker } from '../ha/load.js';
import { type Receiver, startReceiver } from '../lib/receiver.js';
import { until } from '../lib/until.js';
import { CitusCluster } from './cluster.js';
import { Phases } from './phases.js';
import { ServerLogs } from './server-logs.js';
import { ok, servedBetween, startTenantLoads, type TenantLoads } from './tenant-loads.js';
import { type CitusTotals, type VerifyContext, verify } from './verify.js';

/** `short` (CI: migrate and one shard move under load) or `full`. Set by deploy/citus/run.sh. */
const PROFILE = process.env.CITUS_PROFILE === 'short' ? 'short' : 'full';
/** Tenants of the load, each with its own key, page, audience and subscription. */
const TENANTS = 24;
/** The tenant whose shard group is moved: it gets a worker on each API process. */
const BUSY = 0;
/** How long a worker stays dead. */
const LOSS_MS = 10_000;

const totals: CitusTotals = {
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
const logs = new ServerLogs();
const phases = new Phases();

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
    logs.collect(`api${i + 1}`, api);
    apis.push(api);
  }
  const dispatchPort = await freePort();
  dispatcher = spawnTracked({
    command: process.execPath,
    args: [SERVER_CLI, 'dispatch'],
    env: { ...env, PORT: String(await freePort()), DISPATCH_PORT: String(dispatchPort) },
    outputLimit: 400_000,
  });
  logs.collect('dispatch', dispatcher);
  const health = `http://127.0.0.1:${dispatchPort}/healthz`;
  await waitUntil(dispatcher, `${health} answered`, async () => (await fetch(health)).ok, {
    timeoutMs: 60_000,
  });

  await setUpTenants().catch((err: unknown) => {
    throw new Error(`setting up the tenants failed: ${String(err)}\n${logs.errorLines()}`, { cause: err });
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

/** What {@link verify} reads besides the cluster, once the tenants exist. */
function verifyContext(): VerifyContext {
  return { tenantIds, receiver: receiver as Receiver, totals, logs, phases };
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
describe(`Citus cluster (${PROFILE})`, () => {
  it(
    PROFILE === 'short'
      ? 'serves tenants through a shard move'
      : "serves tenants through a shard move, a new worker's rebalance and a worker's loss",
    async () => {
      const c = requireCluster();
      phases.begin('warm-up');
      const loads = startTenantLoads(workers, (i) => apiOf(i).url, BUSY, `citus-${Date.now().toString(36)}`);
      let results: LoadResult[][];
      try {
        await everyTenantServed(loads);
        phases.begin('move');
        await moveBusyTenant(c);
        phases.begin('after the move');
        await everyTenantServed(loads);
        if (PROFILE === 'full') {
          phases.begin('rebalance');
          await addWorkerAndRebalance(c);
          phases.begin('after the rebalance');
          await everyTenantServed(loads);
          phases.begin('loss');
          await loseWorker(c, loads, 1);
          phases.begin('after the loss');
          await everyTenantServed(loads);
        }
        phases.begin('stop');
        results = await loads.stop();
      } catch (err) {
        // What the load got so far, and the server's warnings and errors, say why the step failed.
        phases.begin('stop');
        await verify(c, (await loads.stop()).flat(), verifyContext()).catch(() => {});
        throw err;
      }
      await verify(c, results.flat(), verifyContext());
    },
  );
});
