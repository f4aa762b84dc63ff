import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createClient } from '@customer-api/client';
import { createKey, runCli } from '@customer-api/test-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../lib/receiver.js';
import { waitDelivered } from '../lib/webhook-load.js';
import { type AppHost, addressOf, Deployment, type Node } from './deployment.js';
import { type Attempt, type LoadResult, longestUnavailability, startLoad, type Worker } from './load.js';

/**
 * `short` (CI: one failover) or `full` (`pnpm test:ha`: every scenario). Set by deploy/ha/run.sh.
 */
const PROFILE = process.env.HA_PROFILE === 'short' ? 'short' : 'full';
const WORKERS = 8;
/** Successful answers that show the service is serving (before a fault, after recovery). */
const SERVING = 40;
/** How long `/readyz` of a process cut from the database may take to answer 503 (documented). */
const READYZ_BOUND_MS = 5000;
/** Every request's bound under loss: statement timeout (2 s) + 1 s, a connect (5 s), the share's queue (1 s), twice over. */
const REQUEST_BOUND_MS = 20_000;

const totals = {
  failovers: 0,
  switchovers: 0,
  writes: 0,
  lost: 0,
  duplicated: 0,
  events: 0,
  undelivered: 0,
  other5xx: 0,
  longestMs: 0,
};

let deployment: Deployment | undefined;
let receiver: Receiver | undefined;
let admin: pg.Pool | undefined;
let env: Record<string, string> = {};
let workers: Worker[] = [];
const tenants: string[] = [];

beforeAll(async () => {
  const d = await Deployment.start();
  deployment = d;
  receiver = await startReceiver(addressOf(d.vars, 'client'));
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    NODE_ENV: 'production',
    SECRETS_ENCRYPTION_KEYS: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    DATABASE_URL: d.databaseUrl('primary'),
    DATABASE_REPLICA_URL: d.databaseUrl('replicas'),
    METRICS_PORT: '9100',
    REDIS_URL: d.redisUrl,
    BASE_URL: d.publicUrl,
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_MAX: '100000000',
    TENANT_DB_CONCURRENCY: '8',
    DATABASE_STATEMENT_TIMEOUT_MS: '2000',
    WEBHOOKS_DISPATCHER: '0',
    WEBHOOKS_ALLOW_INSECURE: '1',
    WEBHOOKS_TIMEOUT_MS: '2000',
    WEBHOOKS_RETRY_SCHEDULE: '1,1,1,1,2,2,2,2,2,2,5,5,5,5,5',
  };
  await runCli(env, ['migrate']);
  for (const host of ['api1', 'api2', 'disp1'] as const) await d.startApp(host, env);
  admin = new pg.Pool({ connectionString: d.databaseUrl('primary'), max: 2 });
  admin.on('error', () => {});
  const tenant = `ha-${Date.now().toString(36)}`;
  tenants.push(tenant);
  const keys = await Promise.all(Array.from({ length: WORKERS }, () => createKey(env, tenant)));
  const setup = createClient({ baseUrl: d.publicUrl, apiKey: keys[0] as string, logLevel: 'off' });
  await setup.createWebhookSubscription({ body: { url: receiver.url } });
  workers = await Promise.all(
    keys.map(async (apiKey) => {
      const client = createClient({ baseUrl: d.publicUrl, apiKey, logLevel: 'off' });
      const page = await client.createPage({
        body: { name: 'HA versions', title: 'HA', pageContext: 'x', brandId: 'b', pageType: 'inbound' },
      });
      const audience = await client.createAudience({ params: { page_id: page.pageId }, body: {} });
      await client.close();
      return { apiKey, pageId: page.pageId, audienceId: audience.audienceId };
    }),
  );
  await setup.close();
}, 300_000);

afterAll(async () => {
  const line =
    `ha: ${totals.failovers} failovers, ${totals.switchovers} switchovers; ` +
    `acknowledged writes ${totals.writes}, lost ${totals.lost}, duplicated ${totals.duplicated}; ` +
    `events ${totals.events}, undelivered ${totals.undelivered}; ` +
    `5xx other than 503: ${totals.other5xx}; longest unavailability ${(totals.longestMs / 1000).toFixed(1)} s`;
  for (const host of ['api1', 'api2'] as const) {
    const metrics = await fetch(`http://${addressOf(deployment?.vars ?? {}, host)}:9100/metrics`)
      .then((res) => res.text())
      .catch(() => '');
    const reads = metrics.split('\n').filter((l) => l.startsWith('db_reads_total{'));
    console.log(`[ha] ${host} reads by target: ${reads.join('; ') || 'none'}`);
  }
  console.log(line);
  if (process.env.HA_SUMMARY_FILE) await appendFile(process.env.HA_SUMMARY_FILE, `${line}\n`);
  await admin?.end().catch(() => {});
  await receiver?.close();
  await deployment?.stop();
}, 120_000);

function requireDeployment(): Deployment {
  if (!deployment) throw new Error('the deployment did not start');
  return deployment;
}

/** Resolves (with the time) once `count` more successful answers are in `attempts` than now. */
async function served(attempts: Attempt[], count: number, timeoutMs = 120_000): Promise<number> {
  const from = performance.now();
  const ok = () => attempts.filter((a) => a.at + a.ms >= from && a.status >= 200 && a.status < 300).length;
  await until(async () => ok() >= count, timeoutMs);
  return performance.now();
}

/** Checks what the load got and left behind; adds to the totals. */
async function verify(name: string, result: LoadResult): Promise<void> {
  const names = [...result.pages.keys()];
  const rows = await (admin as pg.Pool).query<{ name: string; copies: number }>(
    `SELECT p.name, count(*)::int AS copies FROM pages p JOIN tenants t ON t.id = p.tenant_id
     WHERE t.name = ANY($1) AND p.name = ANY($2) GROUP BY p.name`,
    [tenants, names],
  );
  const stored = new Map(rows.rows.map((r) => [r.name, r.copies]));
  const lost = names.filter((n) => !stored.has(n));
  const duplicated = [...stored.values()].filter((copies) => copies > 1).length;
  const undelivered = await waitDelivered((receiver as Receiver).versions, result.versions, 180_000);
  const other5xx = result.attempts.filter((a) => a.status >= 500 && a.status !== 503).length;
  totals.writes += names.length + result.versions.length;
  totals.lost += lost.length;
  totals.duplicated += duplicated;
  totals.events += result.versions.length;
  totals.undelivered += undelivered.length;
  totals.other5xx += other5xx;
  console.log(
    `[ha] ${name}: ${result.attempts.length} exchanges, ${names.length} pages and ${result.versions.length} versions acknowledged, ` +
      `${result.attempts.filter((a) => a.status === 503).length} answered 503, ${result.givenUp} calls given up, ` +
      `slowest exchange ${Math.round(Math.max(0, ...result.attempts.map((a) => a.ms)))} ms`,
  );
  const errorLines = (['api1', 'api2'] as const).flatMap((host) =>
    requireDeployment()
      .output(host)
      .split('\n')
      .filter((line) => line.includes('"level":50'))
      .slice(-3)
      .map((line) => `${host}: ${line.slice(0, 1500)}`),
  );
  expect(result.problems.slice(0, 10), errorLines.join('\n')).toEqual([]);
  expect(lost).toEqual([]);
  expect(duplicated).toBe(0);
  expect(undelivered).toEqual([]);
  expect(result.pages.size).toBeGreaterThan(0);
}

/** What a fault sees: the deployment, and a wait for `count` more successful answers. */
interface FaultContext {
  d: Deployment;
  serving(count?: number): Promise<number>;
}

/**
 * Runs the load, applies `fault` once the service is serving, waits until it serves again after
 * `fault` resolved, and verifies what the load got and left behind.
 */
async function underLoad(name: string, fault: (context: FaultContext) => Promise<void>): Promise<LoadResult> {
  const d = requireDeployment();
  const load = startLoad(d.publicUrl, `${name}-${Date.now().toString(36)}`, workers);
  const serving = (count = SERVING) => served(load.attempts, count);
  let result: LoadResult | undefined;
  try {
    await serving();
    const faultAt = performance.now();
    await fault({ d, serving });
    const recovered = await serving();
    result = await load.stop();
    const longest = longestUnavailability(result.attempts, faultAt, recovered);
    totals.longestMs = Math.max(totals.longestMs, longest);
    console.log(`[ha] ${name}: longest unavailability ${(longest / 1000).toFixed(1)} s`);
  } finally {
    result ??= await load.stop();
  }
  await verify(name, result);
  return result;
}

/** Waits until the node other than `old` leads. */
async function newPrimary(d: Deployment, old: Node): Promise<Node> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const now = await d.primary();
    if (now && now !== old) return now;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `no new primary within 120 s\n${d.output('pg1').slice(-3000)}\n${d.output('pg2').slice(-3000)}`,
  );
}

/** The old primary is back as the synchronous standby of the new one. */
async function rejoined(d: Deployment, old: Node): Promise<void> {
  const members = await d.waitForCluster(2, 180_000);
  expect(members.find((m) => m.name === old)?.role).toBe('sync_standby');
}

async function currentPrimary(d: Deployment): Promise<Node> {
  const primary = await d.primary();
  if (!primary) throw new Error('no primary');
  return primary;
}

/** `db_reads_total` of both API processes, by `target`. */
async function readsByTarget(d: Deployment): Promise<Record<string, number>> {
  const totalsByTarget: Record<string, number> = {};
  for (const host of ['api1', 'api2'] as const) {
    const text = await (await fetch(`http://${addressOf(d.vars, host)}:9100/metrics`)).text();
    for (const match of text.matchAll(/^db_reads_total\{target="(\w+)"[^}]*\} (\d+)$/gm)) {
      totalsByTarget[match[1] as string] = (totalsByTarget[match[1] as string] ?? 0) + Number(match[2]);
    }
  }
  return totalsByTarget;
}

describe(`HA on Patroni, etcd and HAProxy (${PROFILE})`, () => {
  it.skipIf(PROFILE === 'short')(
    "serves a reader tenant from the replica frontend, a writer's reads from the primary while replay lags",
    async () => {
      const d = requireDeployment();
      const reader = await createKey(env, `ha-reader-${Date.now().toString(36)}`);
      const client = createClient({ baseUrl: d.publicUrl, apiKey: reader, logLevel: 'off' });
      const writer = createClient({
        baseUrl: d.publicUrl,
        apiKey: (workers[0] as Worker).apiKey,
        logLevel: 'off',
      });
      try {
        await client.listPages({ query: { limit: 5 } });
        const before = await readsByTarget(d);
        for (let i = 0; i < 40; i += 1) await client.listPages({ query: { limit: 5 } });
        // Replay held on the standby: the writer's reads (through either API process) must not
        // be served there, or they would miss the page just created.
        const standby = new pg.Client({ connectionString: d.databaseUrl('replicas') });
        await standby.connect();
        await standby.query('SELECT pg_wal_replay_pause()');
        const middle = await readsByTarget(d);
        for (let i = 0; i < 20; i += 1) {
          const page = await writer.createPage({
            body: { name: `ryw-${i}`, title: 'HA', pageContext: 'x', brandId: 'b', pageType: 'inbound' },
          });
          await writer.getPage({ params: { page_id: page.pageId } });
        }
        const after = await readsByTarget(d);
        await standby.query('SELECT pg_wal_replay_resume()');
        await standby.end();
        const delta = (from: Record<string, number>, to: Record<string, number>, target: string) =>
          (to[target] ?? 0) - (from[target] ?? 0);
        console.log(
          `[ha] replica reads: reader ${delta(before, middle, 'replica')} of 40 on the replica; ` +
            `writer ${delta(middle, after, 'primary')} of 20 reads-after-write on the primary while replay was paused`,
        );
        expect(delta(before, middle, 'replica')).toBeGreaterThanOrEqual(30);
        expect(delta(middle, after, 'primary')).toBeGreaterThanOrEqual(20);
      } finally {
        await client.close();
        await writer.close();
      }
    },
  );

  it('survives kill -9 of the primary host under load; the old primary rejoins as a replica', async () => {
    await underLoad('failover-kill', async ({ d }) => {
      const old = await currentPrimary(d);
      await d.killHost(old);
      await newPrimary(d, old);
      totals.failovers += 1;
      d.startEngine(old);
      await rejoined(d, old);
    });
  });

  it.skipIf(PROFILE === 'short')('survives a planned switchover under load', async () => {
    await underLoad('switchover', async ({ d }) => {
      const old = await currentPrimary(d);
      const candidate: Node = old === 'pg1' ? 'pg2' : 'pg1';
      await d.switchover(old, candidate);
      await newPrimary(d, old);
      totals.switchovers += 1;
      await rejoined(d, old);
    });
  });

  it.skipIf(PROFILE === 'short')(
    "survives the primary host's link going down; it rejoins once back",
    async () => {
      await underLoad('failover-link', async ({ d }) => {
        const old = await currentPrimary(d);
        await d.link(old, 'down');
        await newPrimary(d, old);
        totals.failovers += 1;
        await d.link(old, 'up');
        await rejoined(d, old);
      });
    },
  );

  it.skipIf(PROFILE === 'short')(
    'takes an API host cut from the database out of rotation within the bound, and back once healed',
    async () => {
      const lbDb = requireDeployment().vars.HA_LB_DB as string;
      let unreadyAfterMs = 0;
      await underLoad('api1-cut', async ({ d }) => {
        const cutAt = performance.now();
        await d.cut('api1', [lbDb]);
        await until(async () => (await readyz(d, 'api1')) === 503, 30_000);
        unreadyAfterMs = performance.now() - cutAt;
        await until(async () => (await haproxyStatus(d, 'api1')) === 'DOWN', 30_000);
        await d.heal('api1', [lbDb]);
        await until(async () => (await haproxyStatus(d, 'api1')) === 'UP', 60_000);
      });
      console.log(
        `[ha] api1-cut: /readyz answered 503 ${(unreadyAfterMs / 1000).toFixed(1)} s after the cut`,
      );
      expect(unreadyAfterMs).toBeLessThan(READYZ_BOUND_MS);
    },
  );

  it.skipIf(PROFILE === 'short')(
    'bounds every request by the statement timeout and the tenant share under 20 % packet loss to the database',
    async () => {
      const lbDb = requireDeployment().vars.HA_LB_DB as string;
      const result = await underLoad('api-db-loss', async ({ d, serving }) => {
        await d.loss('api1', lbDb, 20);
        await d.loss('api2', lbDb, 20);
        await serving();
        await d.clearLoss('api1', lbDb, 20);
        await d.clearLoss('api2', lbDb, 20);
      });
      const slowest = Math.max(...result.attempts.map((a) => a.ms));
      expect(slowest).toBeLessThan(REQUEST_BOUND_MS);
    },
  );

  it.skipIf(PROFILE === 'short')('keeps serving with the Redis host cut off', async () => {
    const redis = addressOf(requireDeployment().vars, 'redis');
    await underLoad('redis-cut', async ({ d, serving }) => {
      await d.cut('api1', [redis]);
      await d.cut('api2', [redis]);
      await serving();
      expect(await readyz(d, 'api1')).toBe(200);
      await d.heal('api1', [redis]);
      await d.heal('api2', [redis]);
    });
  });
});

async function readyz(d: Deployment, host: AppHost): Promise<number> {
  const res = await fetch(`${d.appUrl(host)}/readyz`, { signal: AbortSignal.timeout(10_000) }).catch(
    () => undefined,
  );
  await res?.arrayBuffer();
  return res?.status ?? 0;
}

/** HAProxy's view of an API server (`UP`, `DOWN`, …), from its stats CSV. */
async function haproxyStatus(d: Deployment, server: AppHost): Promise<string | undefined> {
  const res = await fetch(`http://${d.vars.HA_LB}:7000/;csv`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`api,${server},`));
  return line?.split(',')[17];
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
