// Scenario 10's loads on one side: reads over every tenant's key in turn (scenario 2's closed
// loop), and one drain of scenario 4 (webhooks-worker.ts) with the CPU per delivery of each node.
import type { BenchContext } from '../../context.js';
import { type LoadRun, latency, type NextRequest } from '../../lib/load.js';
import { messageOf, runJsonScript } from '../../lib/proc.js';
import type { CitusFailedSide, CitusWebhookSide } from '../../results.js';
import { accountId } from '../scale.js';
import type { DrainRoundOutput } from '../webhooks-drain/measures.js';
import { CONNECTIONS, LIST } from './plan.js';
import { serverOf, type Target } from './targets.js';

const WEBHOOKS_WORKER = new URL('../webhooks-worker.js', import.meta.url).pathname;

/** GETs of `kind` (a first page, or an account by id) over every tenant's key in turn. */
function reads(kind: 'list' | 'read', tenants: Target['tenants']): () => NextRequest {
  let n = 0;
  return () => {
    const tenant = tenants[n % tenants.length];
    n += 1;
    if (!tenant) return LIST;
    const path =
      kind === 'list'
        ? LIST
        : `/v0/accounts/${accountId(tenant.tenantId, 1 + Math.floor(Math.random() * tenant.size))}`;
    return { path, headers: { 'x-api-key': tenant.apiKey } };
  };
}

/** A read load of `kind` on `target` for `seconds`. */
export const readLoad = (target: Target, kind: 'list' | 'read', seconds: number): Promise<LoadRun> =>
  latency({
    url: serverOf(target).url,
    seconds,
    connections: CONNECTIONS,
    path: reads(kind, target.tenants),
  });

/**
 * One round of scenario 4's drain (one dispatcher, `events` events) on `target`'s database, with
 * the CPU per delivery of each of its nodes; `{ error }` when the drain fails.
 */
export async function webhooks(
  target: Target,
  ctx: BenchContext,
  events: number,
): Promise<CitusWebhookSide | CitusFailedSide> {
  const postmasters = Object.fromEntries(target.nodes.map((node) => [node.name, node.postmaster]));
  try {
    const out = await runJsonScript<DrainRoundOutput>(
      ctx.nodes.n24,
      WEBHOOKS_WORKER,
      {
        DATABASE_URL: target.db.url,
        EVENTS: String(events),
        PHASES: 'one',
        POSTMASTERS: JSON.stringify(postmasters),
        // A drain that has not delivered its events within this is failing (they take seconds):
        // its figure is missing, with what the dispatcher logged, and the run goes on.
        DELIVERY_TIMEOUT_MS: String(ctx.smoke ? 30_000 : ctx.quick ? 60_000 : 120_000),
        DISPATCH_LOG_LEVEL: 'warn',
      },
      { timeoutMs: 300_000 },
    );
    return {
      rps: out.one ?? Number.NaN,
      transactions: out.transactionsOne ?? Number.NaN,
      dispatcherCpuUs: out.cpuOne?.dispatcher ?? Number.NaN,
      nodes: Object.fromEntries(
        target.nodes.map((node) => [node.name, { cpuUs: out.cpuOne?.[node.name] ?? Number.NaN }]),
      ),
    };
  } catch (error) {
    const message = messageOf(error).replace(WEBHOOKS_WORKER, 'webhooks-worker.js').replace(/\s+/g, ' ');
    return { error: message.trim().slice(0, 1500) };
  }
}
