// Scenario 4's second part: our dispatcher against the job queues a team would otherwise pick
// (graphile-worker with its defaults and with a local queue, pg-boss, BullMQ) and plain undici
// POSTs, doing the same signed deliveries. Each round runs in webhook-peers-round.mjs on Node 24 on
// a fresh database, the systems in an order rotated by round; ratios are taken within a round.
// Every system gets the same treatment: one receiver in a process of its own, worker processes
// started and warmed by a drain of their own before the one measured, the same events over the
// same tenants.
import { ensureDatabase } from '../lib/db.mjs';
import { runJsonScript } from '../lib/proc.mjs';
import { spread } from '../lib/stats.mjs';
import { peerSettings, SYSTEMS } from './webhook-peers-systems.mjs';

/** The peers reported under webhooks.peers (ours are under webhooks.peersOurs). */
export const PEER_NAMES = ['graphile-worker', 'graphile-worker-local-queue', 'pg-boss', 'bullmq', 'undici'];
/** Peers whose job is durable once its enqueue returns (a PostgreSQL commit). */
const DURABLE_PEERS = SYSTEMS.filter((s) => s.durable && !s.name.startsWith('ours')).map((s) => s.name);

/** Sizes and rounds of a full, quick or smoke run (BENCH_PEER_ROUNDS overrides the rounds). */
function plan(ctx) {
  const base = ctx.smoke
    ? { sizes: [300], rounds: 1, latencySeconds: 1, crashEvents: 300, leaseSeconds: 2, warmupEvents: 100 }
    : ctx.quick
      ? { sizes: [500, 2000], rounds: 1, latencySeconds: 2, crashEvents: 1000, warmupEvents: 1000 }
      : { sizes: [2000, 10_000], rounds: 5, latencySeconds: 10, crashEvents: 3000, warmupEvents: 2000 };
  const rounds = Number(process.env.BENCH_PEER_ROUNDS) || base.rounds;
  return { ...base, rounds, latencyRate: 20, tenants: 4 };
}

/** Runs the peer rounds and returns webhooks.peers, webhooks.peersOurs and webhooks.vsBestPeer. */
export async function runWebhookPeers(ctx) {
  const p = plan(ctx);
  const worker = new URL('./webhook-peers-round.mjs', import.meta.url).pathname;
  const rounds = [];
  for (let r = 0; r < p.rounds; r += 1) {
    const databaseUrl = await ensureDatabase('bench_peers', { fresh: true });
    const env = {
      DATABASE_URL: databaseUrl,
      ROUND: String(r),
      SIZES: p.sizes.join(','),
      TENANTS: String(p.tenants),
      LATENCY_RATE: String(p.latencyRate),
      LATENCY_SECONDS: String(p.latencySeconds),
      CRASH_EVENTS: String(p.crashEvents),
      WARMUP_EVENTS: String(p.warmupEvents),
      ...(p.leaseSeconds ? { BENCH_PEERS_LEASE_SECONDS: String(p.leaseSeconds) } : {}),
    };
    rounds.push(await runJsonScript(ctx.nodes.n24, worker, env, { timeoutMs: 2_400_000 }));
    ctx.progress(`webhook peers round ${r + 1}/${p.rounds}`);
  }
  return summarize(p, rounds);
}

/** Every figure of one system as `{ median, min, max }` over the rounds; ratios are ours / it within a round. */
function systemFigures(name, p, rounds) {
  const largest = Math.max(...p.sizes);
  const of = (r) => r.results[name];
  const fig = (pick) => spread(rounds.map(pick).filter((v) => v !== undefined));
  const drainAt = (size) => ({
    deliveriesPerS: fig((r) => of(r).drains[size].rate),
    oursOver: fig((r) => r.results.ours.drains[size].rate / of(r).drains[size].rate),
    enqueueSeconds: fig((r) => of(r).drains[size].enqueueSeconds),
  });
  const big = (r) => of(r).drains[largest];
  const out = {
    bySize: Object.fromEntries(p.sizes.map((size) => [size, drainAt(size)])),
    deliveriesPerS: fig((r) => big(r).rate),
    cpuUsPerDelivery: fig((r) => big(r).cpu.workers),
    pgCpuUsPerDelivery: fig((r) => big(r).cpu.pg),
    databaseCpuUsPerDelivery: fig((r) => big(r).cpu.database),
    receiverCpuUsPerDelivery: fig((r) => big(r).cpu.receiver),
    rssMiB: fig((r) => big(r).rssMiB),
  };
  if (of(rounds[0]).latency) {
    out.p50Ms = fig((r) => of(r).latency.p50);
    out.p99Ms = fig((r) => of(r).latency.p99);
  }
  if (of(rounds[0]).logged) {
    out.withLogRow = {
      deliveriesPerS: fig((r) => of(r).logged.rate),
      oursOver: fig((r) => r.results.ours.drains[largest].rate / of(r).logged.rate),
      cpuUsPerDelivery: fig((r) => of(r).logged.cpu.workers),
      pgCpuUsPerDelivery: fig((r) => of(r).logged.cpu.pg),
    };
  }
  if (of(rounds[0]).crash) {
    out.kill9 = {
      events: of(rounds[0]).crash.events,
      duplicates: fig((r) => of(r).crash.duplicates),
      lost: fig((r) => of(r).crash.lost),
    };
  }
  return out;
}

function summarize(p, rounds) {
  const largest = Math.max(...p.sizes);
  const all = Object.fromEntries(
    SYSTEMS.map((s) => [s.name, { label: s.label, durable: s.durable, ...systemFigures(s.name, p, rounds) }]),
  );
  // The fastest durable peer: the highest median deliveries/s at the largest backlog.
  const best = DURABLE_PEERS.reduce((a, b) =>
    all[b].deliveriesPerS.median > all[a].deliveriesPerS.median ? b : a,
  );
  const within = (ours) =>
    spread(rounds.map((r) => r.results[ours].drains[largest].rate / r.results[best].drains[largest].rate));
  const bestLatency = (key) => Math.min(...DURABLE_PEERS.map((n) => all[n][key].median));
  return {
    peers: Object.fromEntries(PEER_NAMES.map((n) => [n, all[n]])),
    peersOurs: { ours: all.ours, 'ours-2': all['ours-2'] },
    vsBestPeer: {
      peer: best,
      events: largest,
      ...within('ours'),
      twoDispatchers: within('ours-2'),
      pgCpu: { ours: all.ours.pgCpuUsPerDelivery.median, peer: all[best].pgCpuUsPerDelivery.median },
      latency: {
        oursP50: all.ours.p50Ms.median,
        oursP99: all.ours.p99Ms.median,
        bestP50: bestLatency('p50Ms'),
        bestP99: bestLatency('p99Ms'),
      },
      undici: spread(
        rounds.map((r) => r.results.ours.drains[largest].rate / r.results.undici.drains[largest].rate),
      ),
    },
    peerRun: {
      ...p,
      orders: rounds.map((r) => r.order),
      settings: peerSettings,
    },
  };
}
