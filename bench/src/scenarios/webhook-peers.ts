// Scenario 4's second part: our dispatcher against the job queues a team would otherwise pick
// (graphile-worker with its defaults and with a local queue, pg-boss, BullMQ) and plain undici
// POSTs, doing the same signed deliveries. Each round runs in webhook-peers-round.ts on Node 24 on
// a fresh database, the systems in an order rotated by round; ratios are taken within a round.
// Every system gets the same treatment: one receiver in a process of its own, worker processes
// started and warmed by a drain of their own before the one measured, the same events over the
// same tenants.
import type { BenchContext } from '../context.js';
import { ensureDatabase } from '../lib/db.js';
import { runJsonScript } from '../lib/proc.js';
import { spread } from '../lib/stats.js';
import type { PeerFigures, PeerPlan, Spread, WebhookPeersResult } from '../results.js';
import type { DrainFigures, PeerRoundOutput, SystemRound } from './webhook-peers-round/measures.js';
import { peerSettings } from './webhook-peers-settings.js';
import { SYSTEMS } from './webhook-peers-systems.js';

/** The peers reported under webhooks.peers (ours are under webhooks.peersOurs). */
export const PEER_NAMES: string[] = [
  'graphile-worker',
  'graphile-worker-local-queue',
  'pg-boss',
  'bullmq',
  'undici',
];
/** Peers whose job is durable once its enqueue returns (a PostgreSQL commit). */
const DURABLE_PEERS = SYSTEMS.filter((s) => s.durable && !s.name.startsWith('ours')).map((s) => s.name);

/** Sizes and rounds of a full, quick or smoke run (BENCH_PEER_ROUNDS overrides the rounds). */
function plan(ctx: BenchContext): PeerPlan {
  const base: Omit<PeerPlan, 'latencyRate' | 'tenants'> = ctx.smoke
    ? { sizes: [300], rounds: 1, latencySeconds: 1, crashEvents: 300, leaseSeconds: 2, warmupEvents: 100 }
    : ctx.quick
      ? { sizes: [500, 2000], rounds: 1, latencySeconds: 2, crashEvents: 1000, warmupEvents: 1000 }
      : { sizes: [2000, 10_000], rounds: 5, latencySeconds: 10, crashEvents: 3000, warmupEvents: 2000 };
  const rounds = Number(process.env.BENCH_PEER_ROUNDS) || base.rounds;
  return { ...base, rounds, latencyRate: 20, tenants: 4 };
}

/** Runs the peer rounds and returns webhooks.peers, webhooks.peersOurs and webhooks.vsBestPeer. */
export async function runWebhookPeers(ctx: BenchContext): Promise<WebhookPeersResult> {
  const p = plan(ctx);
  const worker = new URL('./webhook-peers-round.js', import.meta.url).pathname;
  const rounds: PeerRoundOutput[] = [];
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
    rounds.push(await runJsonScript<PeerRoundOutput>(ctx.nodes.n24, worker, env, { timeoutMs: 2_400_000 }));
    ctx.progress(`webhook peers round ${r + 1}/${p.rounds}`);
  }
  return summarize(p, rounds);
}

/** `name`'s figures in round `r`. */
function systemIn(r: PeerRoundOutput, name: string): SystemRound {
  const figures = r.results[name];
  if (!figures) throw new Error(`round without figures of ${name}`);
  return figures;
}

/** `name`'s drain of `size` events in round `r`. */
function drainIn(r: PeerRoundOutput, name: string, size: number): DrainFigures {
  const figures = systemIn(r, name).drains[size];
  if (!figures) throw new Error(`round without ${name}'s drain of ${size}`);
  return figures;
}

/** A step's figures that is there when the first round has it. */
function stepIn<K extends 'logged' | 'latency' | 'crash'>(
  r: PeerRoundOutput,
  name: string,
  key: K,
): NonNullable<SystemRound[K]> {
  const figures = systemIn(r, name)[key];
  if (!figures) throw new Error(`round without ${name}'s ${key}`);
  return figures;
}

/** Every figure of one system as `{ median, min, max }` over the rounds; ratios are ours / it within a round. */
function systemFigures(
  name: string,
  p: PeerPlan,
  rounds: PeerRoundOutput[],
): Omit<PeerFigures, 'label' | 'durable'> {
  const largest = Math.max(...p.sizes);
  const fig = (pick: (r: PeerRoundOutput) => number | undefined): Spread =>
    spread(rounds.map(pick).filter((v): v is number => v !== undefined));
  const drainAt = (size: number) => ({
    deliveriesPerS: fig((r) => drainIn(r, name, size).rate),
    oursOver: fig((r) => drainIn(r, 'ours', size).rate / drainIn(r, name, size).rate),
    enqueueSeconds: fig((r) => drainIn(r, name, size).enqueueSeconds),
  });
  const big = (r: PeerRoundOutput) => drainIn(r, name, largest);
  const out: Omit<PeerFigures, 'label' | 'durable'> = {
    bySize: Object.fromEntries(p.sizes.map((size) => [size, drainAt(size)])),
    deliveriesPerS: fig((r) => big(r).rate),
    cpuUsPerDelivery: fig((r) => big(r).cpu.workers),
    pgCpuUsPerDelivery: fig((r) => big(r).cpu.pg),
    databaseCpuUsPerDelivery: fig((r) => big(r).cpu.database),
    receiverCpuUsPerDelivery: fig((r) => big(r).cpu.receiver),
    rssMiB: fig((r) => big(r).rssMiB),
  };
  const first = rounds[0] && systemIn(rounds[0], name);
  if (first?.latency) {
    out.p50Ms = fig((r) => stepIn(r, name, 'latency').p50);
    out.p99Ms = fig((r) => stepIn(r, name, 'latency').p99);
  }
  if (first?.logged) {
    out.withLogRow = {
      deliveriesPerS: fig((r) => stepIn(r, name, 'logged').rate),
      oursOver: fig((r) => drainIn(r, 'ours', largest).rate / stepIn(r, name, 'logged').rate),
      cpuUsPerDelivery: fig((r) => stepIn(r, name, 'logged').cpu.workers),
      pgCpuUsPerDelivery: fig((r) => stepIn(r, name, 'logged').cpu.pg),
    };
  }
  if (first?.crash) {
    out.kill9 = {
      events: first.crash.events,
      duplicates: fig((r) => stepIn(r, name, 'crash').duplicates),
      lost: fig((r) => stepIn(r, name, 'crash').lost),
    };
  }
  return out;
}

function summarize(p: PeerPlan, rounds: PeerRoundOutput[]): WebhookPeersResult {
  const largest = Math.max(...p.sizes);
  const all: Record<string, PeerFigures> = Object.fromEntries(
    SYSTEMS.map((s) => [s.name, { label: s.label, durable: s.durable, ...systemFigures(s.name, p, rounds) }]),
  );
  const figuresOf = (name: string): PeerFigures => {
    const figures = all[name];
    if (!figures) throw new Error(`no figures of ${name}`);
    return figures;
  };
  const median = (s: Spread | undefined) => s?.median ?? Number.NaN;
  // The fastest durable peer: the highest median deliveries/s at the largest backlog.
  const best = DURABLE_PEERS.reduce((a, b) =>
    figuresOf(b).deliveriesPerS.median > figuresOf(a).deliveriesPerS.median ? b : a,
  );
  const within = (ours: string) =>
    spread(rounds.map((r) => drainIn(r, ours, largest).rate / drainIn(r, best, largest).rate));
  const bestLatency = (key: 'p50Ms' | 'p99Ms') =>
    Math.min(...DURABLE_PEERS.map((n) => median(figuresOf(n)[key])));
  const ours = figuresOf('ours');
  return {
    peers: Object.fromEntries(PEER_NAMES.map((n) => [n, figuresOf(n)])),
    peersOurs: { ours, 'ours-2': figuresOf('ours-2'), 'ours-purging': figuresOf('ours-purging') },
    purge: {
      events: largest,
      rate: spread(
        rounds.map((r) => drainIn(r, 'ours-purging', largest).rate / drainIn(r, 'ours', largest).rate),
      ),
      pgCpu: spread(
        rounds.map((r) => drainIn(r, 'ours-purging', largest).cpu.pg / drainIn(r, 'ours', largest).cpu.pg),
      ),
      written: Math.max(0, ...rounds.map((r) => drainIn(r, 'ours-purging', largest).expired?.written ?? 0)),
      purged: spread(rounds.map((r) => drainIn(r, 'ours-purging', largest).expired?.purged ?? 0)),
    },
    vsBestPeer: {
      peer: best,
      events: largest,
      ...within('ours'),
      twoDispatchers: within('ours-2'),
      pgCpu: { ours: ours.pgCpuUsPerDelivery.median, peer: figuresOf(best).pgCpuUsPerDelivery.median },
      latency: {
        oursP50: median(ours.p50Ms),
        oursP99: median(ours.p99Ms),
        bestP50: bestLatency('p50Ms'),
        bestP99: bestLatency('p99Ms'),
      },
      undici: spread(
        rounds.map((r) => drainIn(r, 'ours', largest).rate / drainIn(r, 'undici', largest).rate),
      ),
    },
    peerRun: {
      ...p,
      orders: rounds.map((r) => r.order),
      settings: peerSettings,
    },
  };
}
