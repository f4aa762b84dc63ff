// Scenario 4: webhook deliveries per second with one and two `customer-api dispatch` processes
// against plain undici POSTs to the same loopback receiver, and commit-to-receipt latency at a
// fixed moderate rate; in the first round only, a large backlog over ten tenants (rate and the
// dispatcher's memory). Each round runs in webhooks-worker.mjs on Node 24, on its own database.
// Then the same deliveries against the job queues a team would pick (webhook-peers.mjs).
import { ensureDatabase } from '../lib/db.mjs';
import { runJsonScript } from '../lib/proc.mjs';
import { spread } from '../lib/stats.mjs';
import { runWebhookPeers } from './webhook-peers.mjs';

/** Runs scenario 4. */
export async function runWebhooks(ctx) {
  const databaseUrl = await ensureDatabase('bench_hooks', { fresh: true });
  const env = {
    DATABASE_URL: databaseUrl,
    EVENTS: String(ctx.quick ? 200 : 2000),
    LATENCY_RATE: '20',
    LATENCY_SECONDS: String(ctx.quick ? 1 : 10),
  };
  const worker = new URL('./webhooks-worker.mjs', import.meta.url).pathname;
  const rounds = [];
  const backlog = String(ctx.quick ? 2000 : 100_000);
  for (let r = 0; r < ctx.reps; r += 1) {
    const roundEnv = r === 0 ? { ...env, BACKLOG: backlog } : env;
    rounds.push(await runJsonScript(ctx.nodes.n24, worker, roundEnv, { timeoutMs: 2_400_000 }));
    ctx.progress(`webhooks round ${r + 1}/${ctx.reps}`);
  }
  const peers = await runWebhookPeers(ctx);
  return {
    events: Number(env.EVENTS),
    latencyRate: Number(env.LATENCY_RATE),
    one: spread(rounds.map((r) => r.one)),
    two: spread(rounds.map((r) => r.two)),
    undici: spread(rounds.map((r) => r.undici)),
    ratioOne: spread(rounds.map((r) => r.one / r.undici)),
    ratioTwo: spread(rounds.map((r) => r.two / r.undici)),
    transactionsOne: spread(rounds.map((r) => r.transactionsOne)),
    transactionsTwo: spread(rounds.map((r) => r.transactionsTwo)),
    cpuOne: cpuSpread(rounds.map((r) => r.cpuOne)),
    cpuTwo: cpuSpread(rounds.map((r) => r.cpuTwo)),
    p50: spread(rounds.map((r) => r.latency.p50)),
    p99: spread(rounds.map((r) => r.latency.p99)),
    samples: rounds.reduce((n, r) => n + r.latency.samples, 0),
    backlog: rounds[0]?.backlog,
    ...peers,
  };
}

/** CPU µs per delivery by process, each spread over the rounds. */
function cpuSpread(cpus) {
  return Object.fromEntries(
    ['dispatcher', 'postgres', 'receiver'].map((k) => [k, spread(cpus.map((c) => c[k]))]),
  );
}
