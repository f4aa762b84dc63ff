// One round of scenario 4, run on Node 24 by the harness (folded in from the webhooks engineer's
// delivery script). A loopback receiver answers 200 at once; `customer-api dispatch` processes
// deliver a backlog (events/s with one and with two dispatchers); plain undici POSTs of the same
// bodies to the same receiver give the baseline; then events committed at a fixed moderate rate
// give the commit-to-receipt latency; database transactions per delivery beside each drain. Prints
// one JSON line. BENCH_WEBHOOKS_PROFILE=<dir> writes each dispatcher process's CPU profile there
// (node --cpu-prof); BENCH_WEBHOOKS_NODE_ARGS adds Node options to the dispatcher processes.
// PHASES (default `one,two,undici,latency,backlog`; backlog only with BACKLOG) picks the measurements; POSTMASTERS (JSON, name to
// postmaster pid) adds the CPU per delivery of each of those PostgreSQL instances to the drains'.
// A dispatcher that exits before its deliveries arrive fails the round at once; DELIVERY_TIMEOUT_MS
// (default 120 s) bounds the wait for a drain's deliveries otherwise; DISPATCH_LOG_LEVEL sets the
// dispatchers' LOG_LEVEL (default silent). A failed round's error quotes what they logged.
import { ensureTenant } from '@customer-api/server';
import { createWebhookSubscription } from '@customer-api/server/internals';
import pg from 'pg';
import { openDispatchSetup } from '../lib/dispatch-setup.js';
import { messageOf } from '../lib/proc.js';
import { backlog, type DrainRound, drain, latency, plainUndici } from './webhooks-drain/measures.js';
import { startDrainReceiver } from './webhooks-drain/receiver.js';

const PHASES = new Set((process.env.PHASES ?? 'one,two,undici,latency,backlog').split(','));

// One tenant's backlog: its share is the whole dispatcher here, so the rate is the machine's own
// (the default share of 4 per tenant would measure the fairness cap instead).
const { env, database, deps } = await openDispatchSetup(process.env.DATABASE_URL);
// Transactions of every process on the bench database, from PostgreSQL's statistics (a backend
// reports its own when it ends, and the dispatchers' backends end with them).
const stats = new pg.Client({ connectionString: process.env.DATABASE_URL });
await stats.connect();
const transactions = async () =>
  Number(
    (
      await stats.query<{ n: string }>(
        'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
      )
    ).rows[0]?.n,
  );

// Receiver: counts arrivals and, for latency, maps versionId -> arrival time.
const receiver = await startDrainReceiver();
const url = receiver.url;

const { tenantId } = await ensureTenant(deps, `bench-hooks-${Date.now()}`);
await createWebhookSubscription(deps, tenantId, { url, eventTypes: ['page.version.*'] });

const round: DrainRound = {
  database,
  deps,
  tenantId,
  url,
  env,
  transactions,
  events: Number(process.env.EVENTS ?? 2000),
  latencyRate: Number(process.env.LATENCY_RATE ?? 20),
  latencySeconds: Number(process.env.LATENCY_SECONDS ?? 5),
  /** Events of the large backlog case (0: skipped), spread over ten one-subscription tenants. */
  backlog: Number(process.env.BACKLOG ?? 0),
};

/** Runs `measure` when PHASES names it; a failure ends the round with its message on stdout (for the harness's error). */
async function phase<T>(name: string, measure: () => Promise<T>): Promise<T | undefined> {
  if (!PHASES.has(name)) return undefined;
  try {
    return await measure();
  } catch (error) {
    process.stdout.write(`${name}: ${messageOf(error)}\n`);
    process.exit(1);
  }
}
const {
  rate: one,
  transactions: transactionsOne,
  cpu: cpuOne,
} = (await phase('one', () => drain(round, 1))) ?? {};
const {
  rate: two,
  transactions: transactionsTwo,
  cpu: cpuTwo,
} = (await phase('two', () => drain(round, 2))) ?? {};
const undici = await phase('undici', () => plainUndici(round));
const lat = await phase('latency', () => latency(round));
const large = round.backlog > 0 ? await phase('backlog', () => backlog(round)) : undefined;
receiver.close();
await stats.end();
await database.close();
process.stdout.write(
  `${JSON.stringify({ events: round.events, one, two, undici, transactionsOne, transactionsTwo, cpuOne, cpuTwo, latency: lat, backlog: large, database: database.kind })}\n`,
);
