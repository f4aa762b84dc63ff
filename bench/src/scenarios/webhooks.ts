// Scenario 4: webhook deliveries per second with one and two `customer-api dispatch` processes
// against plain undici POSTs to the same loopback receiver, and commit-to-receipt latency at a
// fixed moderate rate; in the first round only, a large backlog over ten tenants (rate and the
// dispatcher's memory). Each round runs in webhooks-worker.ts on Node 24, on its own database.
// Then the same deliveries against the job queues a team would pick (webhook-peers.ts).
import type { BenchContext } from '../context.js';
import { ensureDatabase } from '../lib/db.js';
import { runJsonScript } from '../lib/proc.js';
import { spread } from '../lib/stats.js';
import type { DrainCpu, Spread, WebhooksResult } from '../results.js';
import { runWebhookPeers } from './webhook-peers.js';
import type { CpuReading } from './webhooks-drain/dispatchers.js';
import type { DrainRoundOutput } from './webhooks-drain/measures.js';

/** Runs scenario 4. */
export async function runWebhooks(ctx: BenchContext): Promise<WebhooksResult> {
  const databaseUrl = await ensureDatabase('bench_hooks', { fresh: true });
  const env = {
    DATABASE_URL: databaseUrl,
    EVENTS: String(ctx.quick ? 200 : 2000),
    LATENCY_RATE: '20',
    LATENCY_SECONDS: String(ctx.quick ? 1 : 10),
  };
  const worker = new URL('./webhooks-worker.js', import.meta.url).pathname;
  const rounds: DrainRoundOutput[] = [];
  const backlog = String(ctx.quick ? 2000 : 100_000);
  for (let r = 0; r < ctx.reps; r += 1) {
    const roundEnv = r === 0 ? { ...env, BACKLOG: backlog } : env;
    rounds.push(
      await runJsonScript<DrainRoundOutput>(ctx.nodes.n24, worker, roundEnv, { timeoutMs: 2_400_000 }),
    );
    ctx.progress(`webhooks round ${r + 1}/${ctx.reps}`);
  }
  const peers = await runWebhookPeers(ctx);
  const of = (pick: (r: DrainRoundOutput) => number | undefined): Spread =>
    spread(rounds.map((r) => num(pick(r))));
  return {
    events: Number(env.EVENTS),
    latencyRate: Number(env.LATENCY_RATE),
    one: of((r) => r.one),
    two: of((r) => r.two),
    undici: of((r) => r.undici),
    ratioOne: of((r) => num(r.one) / num(r.undici)),
    ratioTwo: of((r) => num(r.two) / num(r.undici)),
    transactionsOne: of((r) => r.transactionsOne),
    transactionsTwo: of((r) => r.transactionsTwo),
    cpuOne: cpuSpread(rounds.map((r) => r.cpuOne)),
    cpuTwo: cpuSpread(rounds.map((r) => r.cpuTwo)),
    p50: of((r) => r.latency?.p50),
    p99: of((r) => r.latency?.p99),
    samples: rounds.reduce((n, r) => n + num(r.latency?.samples), 0),
    backlog: rounds[0]?.backlog,
    ...peers,
  };
}

/** CPU µs per delivery by process, each spread over the rounds. */
function cpuSpread(cpus: (CpuReading | undefined)[]): DrainCpu<Spread> {
  const of = (k: keyof DrainCpu<number>) => spread(cpus.map((c) => num(c?.[k])));
  return { dispatcher: of('dispatcher'), postgres: of('postgres'), receiver: of('receiver') };
}

/** A figure a round left out (its phase skipped) counts as NaN, as arithmetic on it did. */
const num = (v: number | undefined): number => v ?? Number.NaN;
