import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { createClient } from '@customer-api/client';
import { createKey, runCli } from '@customer-api/test-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../lib/receiver.js';
import { until } from '../lib/until.js';
import { addressOf, Deployment, type Node } from './deployment.js';
import { type Attempt, type LoadResult, longestUnavailability, startLoad, type Worker } from './load.js';
import { currentPrimary, haproxyStatus, newPrimary, readsByTarget, readyz, rejoined } from './probes.js';
import { type HaTotals, verify } from './verify.js';

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

const totals: HaTotals = {
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
  await verify(
    { admin: admin as pg.Pool, tenants, receiver: receiver as Receiver, deployment: d, totals },
    name,
    result,
  );
  return result;
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
