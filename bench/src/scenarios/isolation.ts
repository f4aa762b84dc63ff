// Scenario "isolation": can one tenant slow down another? Tenant B measures `GET /v0/pages` and
// `GET /v0/accounts/{id}` quiet, then while tenant A, within its rate limit, runs each attack of
// the noisy-neighbour review in turn: unindexable trash searches over a large trash, huge message
// histories read in parallel, slow webhook receivers behind many subscriptions, and idle or
// trickling connections. B's quiet figures for an attack of paced requests come from windows with
// A paused, alternating with the attack's; for the others, from a phase just before. The server
// runs with its default limits (only the dispatcher and insecure webhook targets are switched on). BENCH_ISOLATION_BEFORE=<path of another build's
// apps/server/dist/main.js> runs the same attacks against that build too ("before").
// BENCH_ISOLATION_ATTACKS=trash,messages,webhooks,connections,oversized runs only those (while working on
// one; written to bench/results/partial.md, never docs/); A attacks from a worker thread, so its
// client's work never delays B's measuring loop; BENCH_ISOLATION_SECONDS sets how long B
// measures each phase; BENCH_ISOLATION_PROFILE=<dir> writes the server's CPU profile there (node
// --cpu-prof); BENCH_ISOLATION_NODE_ARGS adds Node options to the server's (e.g.
// `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/snap`);
// BENCH_ISOLATION_ENV='{"TENANT_RESPONSE_BYTES_PER_S":"1048576"}' sets server settings (JSON), to
// see what a limit other than the default changes.
import { randomBytes } from 'node:crypto';
import type { BenchContext } from '../context.js';
import { ensureDatabase, pool as pgPool, tenantKey } from '../lib/db.js';
import { api } from '../lib/ours.js';
import { freePort, SERVER_MAIN, startProcess, stopProcess } from '../lib/proc.js';
import type { IsolationPhase, IsolationResult, IsolationRow, IsolationRun } from '../results.js';
import type { QuietB, Sizes } from './isolation/attack.js';
import { ATTACKS } from './isolation/attacks.js';
import { attackInWorker } from './isolation/in-worker.js';
import { measureB, measureInterleaved, sampleB, sampleRss } from './isolation/measure.js';
import { pageBody, sleep } from './isolation/requests.js';

/** The key of stored secrets of every server this scenario starts on its database. */
const SECRETS_KEY = randomBytes(32).toString('base64');

/** Pause between an attack's end and the quiet measure of the next attack's baseline. */
const SETTLE_MS = 3000;

/**
 * Each mode's sizes: B's phases, the pauses around attacks, and the attacks' own (the trash to
 * search, the messages to read, attack 3's subscriptions slower than B's phase and the wait before
 * B's event, attack 4's idle connections). Smoke: the smallest that still runs every attack's path.
 */
const SIZES: Record<'full' | 'quick' | 'smoke', Sizes> = {
  full: {
    seconds: 20,
    settleMs: SETTLE_MS,
    startMs: 1000,
    trash: 200_000,
    messages: 150,
    subscriptions: 300,
    slowMs: 9_000,
    bAfterMs: 2000,
    idle: 10_000,
  },
  quick: {
    seconds: 5,
    settleMs: SETTLE_MS,
    startMs: 1000,
    trash: 50_000,
    messages: 40,
    subscriptions: 300,
    slowMs: 9_000,
    bAfterMs: 2000,
    idle: 2_000,
  },
  smoke: {
    seconds: 1.5,
    settleMs: 500,
    startMs: 300,
    trash: 2_000,
    messages: 5,
    subscriptions: 20,
    slowMs: 2_000,
    bAfterMs: 500,
    idle: 200,
  },
};
const sizeKey = (ctx: BenchContext) => (ctx.smoke ? 'smoke' : ctx.quick ? 'quick' : 'full');

/** Runs the scenario against this build, and against BENCH_ISOLATION_BEFORE when set. */
export async function runIsolation(ctx: BenchContext): Promise<IsolationResult> {
  const out: IsolationResult = { after: await runAgainst(ctx, SERVER_MAIN, 'after') };
  const before = process.env.BENCH_ISOLATION_BEFORE;
  if (before) out.before = await runAgainst(ctx, before, 'before');
  return out;
}

/**
 * Attacks made of requests at a pace (A can pause them and go on at once): B's quiet figures for
 * these come from windows with A paused, alternating with windows of the attack, so both see the
 * same machine. The others hold state (backed-up deliveries, ten thousand sockets) that a pause
 * would not undo: their quiet figures are measured just before.
 */
const INTERLEAVED = new Set(['trash', 'messages', 'oversized']);

async function runAgainst(ctx: BenchContext, main: string, label: string): Promise<IsolationRun> {
  const sizes = SIZES[sizeKey(ctx)];
  const seconds = Number(process.env.BENCH_ISOLATION_SECONDS ?? sizes.seconds);
  const only = process.env.BENCH_ISOLATION_ATTACKS?.split(',');
  const chosen = ATTACKS.filter(([key]) => !only || only.includes(key));
  const databaseUrl = await ensureDatabase('bench_isolation', { fresh: true });
  const a = tenantKey(databaseUrl, 'noisy-a');
  const b = {
    ...tenantKey(databaseUrl, 'quiet-b'),
    // B measures with keys of its own: enough samples for a p99 while each key stays within its limit.
    measureKeys: Array.from({ length: 4 }, () => tenantKey(databaseUrl, 'quiet-b').apiKey),
  };
  if (chosen.some(([key]) => key === 'trash')) {
    ctx.progress(`isolation (${label}): ${sizes.trash.toLocaleString('en')} trashed assets for tenant A`);
    await trashMany(databaseUrl, a.tenantId, sizes.trash);
  }
  const port = await freePort();
  const server = await startProcess({
    name: `isolation-${label}`,
    bin: ctx.nodes.n24,
    args: [...profileArgs(), main, 'serve'],
    url: `http://127.0.0.1:${port}`,
    readyPath: '/readyz',
    env: {
      NODE_ENV: 'production',
      SECRETS_ENCRYPTION_KEYS: SECRETS_KEY,
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      REDIS_URL: '',
      WEBHOOKS_ALLOW_INSECURE: '1',
      ...JSON.parse(process.env.BENCH_ISOLATION_ENV ?? '{}'),
    },
  });
  const rss = sampleRss(server.pid);
  try {
    const quietB = await prepareB(server.url, b.apiKey);
    const measure = () => measureB(server.url, b.measureKeys, quietB.accountId, seconds);
    const rows: IsolationRow[] = [{ attack: 'quiet', ...(await measure()) }];
    for (const [index, [key, attack]] of chosen.entries()) {
      // B's quiet figures right before each attack are its baseline: a shared machine's load drifts
      // over a run of minutes, and a p99 measured at its start says little of the state ten
      // minutes later. The previous attack gets a few seconds to wind down first. (Interleaved
      // attacks measure their own quiet windows.)
      const interleaved = INTERLEAVED.has(key);
      let quiet: IsolationPhase | undefined = rows[0];
      if (index > 0 && !interleaved) {
        ctx.progress(`isolation (${label}): quiet before ${attack}`);
        await sleep(sizes.settleMs);
        quiet = await measure();
      }
      ctx.progress(`isolation (${label}): ${attack}`);
      // Each attack starts with a fresh key of A, as each would on its own (a spent window, or the
      // cost of the previous attack's large reads, would otherwise blunt the next one).
      const attackerKey = { ...a, apiKey: tenantKey(databaseUrl, 'noisy-a').apiKey };
      const attacker = attackInWorker(key, {
        url: server.url,
        a: attackerKey,
        b,
        quietB,
        sizes,
      });
      // B measures the attack, not the building of its data set (the issue: "the data set made by
      // SQL as above"): an attack that builds one through the API says when it is built.
      await attacker.built;
      await sleep(sizes.startMs); // the attack gets going before B measures
      const measured: { attack: IsolationPhase; quiet: IsolationPhase | undefined } = interleaved
        ? await measureInterleaved(
            attacker,
            (ms) => sampleB(server.url, b.measureKeys, quietB.accountId, ms),
            seconds,
          )
        : { attack: await measure(), quiet };
      const outcome = await attacker.stop();
      rows.push({
        attack,
        ...measured.attack,
        ...outcome,
        ...(measured.quiet
          ? { quiet: { pages: measured.quiet.pages, account: measured.quiet.account } }
          : {}),
        ...(interleaved ? { interleaved: true } : {}),
        rssMiB: rss.takeMax(),
      });
    }
    return { label, seconds, rows, rssMaxMiB: rss.max };
  } finally {
    rss.stop();
    await stopProcess(server);
  }
}

function profileArgs() {
  const dir = process.env.BENCH_ISOLATION_PROFILE;
  const extra = process.env.BENCH_ISOLATION_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])];
}

/**
 * `count` trashed assets of tenant A (200k in a full run), inserted by SQL as the review did, with
 * their counter.
 */
async function trashMany(databaseUrl: string, tenantId: string, count: number): Promise<void> {
  const db = pgPool(databaseUrl, 1);
  try {
    await db.query(
      `INSERT INTO assets (id, tenant_id, name, data_type, file_id, lifecycle_state, created_at, updated_at, trashed_at)
       SELECT 'asset_' || md5($1 || n), $1, 'asset ' || n, 'image', 'f', 'active', now(), now(), now()
       FROM generate_series(1, $2::int) AS n`,
      [tenantId, count],
    );
    await db.query(
      `INSERT INTO tenant_counters (tenant_id, scope, count) VALUES ($1, 'assets:trash', $2)
       ON CONFLICT (tenant_id, scope) DO UPDATE SET count = EXCLUDED.count`,
      [tenantId, count],
    );
    await db.query('ANALYZE assets');
  } finally {
    await db.end();
  }
}

/** B's data: 20 pages, one account, one page with an audience for its webhook event. */
async function prepareB(url: string, apiKey: string): Promise<QuietB> {
  const pages: { pageId: string }[] = [];
  for (let i = 0; i < 20; i += 1) pages.push(await api(url, apiKey, 'POST', '/v0/pages', pageBody(i)));
  const pageId = pages[0]?.pageId ?? '';
  const log = await api<{ accountId: string }>(url, apiKey, 'POST', '/v0/account_logs', {
    source: 'bench',
    domain: 'quiet-b.example',
    payload: { plan: 'pro' },
  });
  const audience = await api<{ audienceId: string }>(
    url,
    apiKey,
    'POST',
    `/v0/pages/${pageId}/audiences`,
    {},
  );
  return { accountId: log.accountId, pageId, audienceId: audience.audienceId };
}
