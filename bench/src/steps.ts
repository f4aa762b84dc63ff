// The scenarios of `pnpm bench`, in the order a run takes them, and what each needs to run.
import type { BenchContext, SharedContext } from './context.js';
import type { ServerHandle } from './lib/proc.js';
import type { ScenarioName, ScenarioResults } from './results.js';
import { runCitus } from './scenarios/citus.js';
import { runConditional } from './scenarios/conditional.js';
import { runIdempotency } from './scenarios/idempotency.js';
import { runIngestion } from './scenarios/ingestion.js';
import { runIsolation } from './scenarios/isolation.js';
import { runMcp } from './scenarios/mcp.js';
import { runMemory } from './scenarios/memory.js';
import { runOverhead } from './scenarios/overhead.js';
import { runReplicaReads } from './scenarios/replica-reads.js';
import { runScale } from './scenarios/scale.js';
import { runWebhooks } from './scenarios/webhooks.js';

/** Every scenario, in the order a run takes them (`--only`'s names). */
export const ALL: ScenarioName[] = [
  'overhead',
  'scale',
  'ingestion',
  'webhooks',
  'mcp',
  'memory',
  'isolation',
  'idempotency',
  'replicas',
  'citus',
  'conditional',
];

/** Scenarios on databases (and servers) of their own: alone, they need no shared `bench` database. */
export const SELF_CONTAINED: ReadonlySet<ScenarioName> = new Set<ScenarioName>([
  'idempotency',
  'replicas',
  'citus',
  'conditional',
]);

/** The shared `bench` database's context and its Node 24 server, when a run prepared them. */
export interface Shared {
  ctx: SharedContext;
  ours24: ServerHandle;
}

/** A scenario: run with the run's context and, for those that use them, the shared database and server. */
type Step<K extends ScenarioName> = (
  ctx: BenchContext,
  shared: Shared | undefined,
) => Promise<ScenarioResults[K]>;

/** A scenario on the shared database: it fails when the run did not prepare it. */
const onShared =
  <K extends ScenarioName>(
    run: (ctx: SharedContext, ours24: ServerHandle) => Promise<ScenarioResults[K]>,
  ): Step<K> =>
  (_ctx, shared) => {
    if (!shared) throw new Error('the shared bench database was not prepared');
    return run(shared.ctx, shared.ours24);
  };

/** Each scenario's step. */
export const STEPS: { [K in ScenarioName]: Step<K> } = {
  overhead: onShared(runOverhead),
  scale: onShared(runScale),
  ingestion: onShared(runIngestion),
  webhooks: (ctx) => runWebhooks(ctx),
  mcp: onShared(runMcp),
  memory: onShared(runMemory),
  isolation: (ctx) => runIsolation(ctx),
  idempotency: (ctx) => runIdempotency(ctx),
  conditional: (ctx) => runConditional(ctx),
  replicas: (ctx) => runReplicaReads(ctx),
  citus: (ctx) => runCitus(ctx),
};
