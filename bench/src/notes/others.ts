// Notes of scenarios 5, 6 and 9 (MCP, memory, read replicas) and of the asset-content run.
import {
  atMost,
  finite,
  HISTORY,
  has,
  measuredAt,
  NOT_MEASURED,
  num,
  over,
  paragraphs,
  pct,
  ratio,
  spread,
  verdict,
} from './format.js';
import type { NotesInput, ReplicaSide } from './input.js';

/** Scenario 5: what the MCP path adds to the client call, and the size of its tool list. */
export function mcpNote(results: NotesInput): string {
  const m = results.mcp;
  const cost = has(m?.overhead50)
    ? `in this run it added ${spread(m.overhead50, 2)} ms at p50 (target under 5 ms: ${verdict(m.overhead50.median < 5)}, ${atMost(m.overhead50, 5)})`
    : `what it adds was ${NOT_MEASURED}`;
  const eras = Object.entries(m?.eras ?? {}).flatMap(([era, e]) =>
    has(e?.overhead50) ? [`${era} ${spread(e.overhead50, 2)} ms`] : [],
  );
  const heap = m?.statelessMemory?.heapGrowthAfterWarmUpMiB;
  return paragraphs(
    `The MCP path is the same client call plus JSON-RPC framing over stdio and the tool's result formatting; ${cost}.${eras.length ? ` Added p50 by protocol revision: ${eras.join(', ')}.` : ''}${finite(heap) ? ` Over sequential stateless calls of the 2026-07-28 revision the server's heap after collection grew ${num(heap, 1)} MiB from the first tenth of the calls on.` : ''}`,
    `**Size of \`tools/list\`.** The bench does not measure it; tests hold the default toolset's list under
32,000 bytes, every tool under 2,350 bytes on average and the read-only list under half the full one.
The list's sizes as the contract grew, and what spelling out nested output shapes and nullable
values cost, are in ${HISTORY}.`,
  );
}

/** Scenario 6: whether the server's RSS stayed flat under constant load. */
export function memoryNote(results: NotesInput): string {
  const m = results.memory;
  const why = `the API-key cache and the rate limiter's per-key windows are bounded (10,000 keys), and nothing else is kept per request.`;
  if (!m || !finite(m.growth))
    return `The server's memory under constant load was ${NOT_MEASURED}; by design ${why}`;
  const flat = Math.abs(m.growth) <= 0.1;
  const load = finite(m.seconds) && finite(m.rate) ? ` over ${num(m.seconds)} s at ${num(m.rate)} req/s` : '';
  return `The server that served every scenario above ${flat ? 'kept a flat RSS' : 'grew beyond the target'} under constant load (${m.growth < 0 ? '' : '+'}${pct(m.growth)} from warm-up to the end${load}; target within 10 %: ${verdict(flat)}): ${why}`;
}

/** The one-off asset-content run: how to run it; its figures are not in the JSON. */
export function assetContentNote(_results: NotesInput): string {
  return `## Asset content: 1 GiB up and down

\`node bench/dist/scenarios/asset-content.js --mib=1024\` (after \`pnpm build\`; PostgreSQL at
127.0.0.1:5432, database \`bench_assets\` recreated) uploads one 1 GiB asset with a streamed
\`PUT /v0/assets/{id}/content\` to a production server (Node 24, \`NODE_ENV=production\`), downloads
it through its signed \`downloadUrl\`, and samples the server process's RSS every 50 ms, once on
PostgreSQL (1 MiB \`bytea\` rows) and once on a directory (\`DATA_DIR/assets\`, PGlite). It is not
part of \`pnpm bench\` and writes nothing to \`docs/benchmarks.json\`, so this report prints none of
its figures: its last run, with each store's RSS and time, is in ${HISTORY}. The default
\`HTTP_REQUEST_TIMEOUT_MS\` (30 s) is for 100 MiB bodies; a 1 GiB run raises it.`;
}

/** `went from a to b µs` of one CPU figure between the two configurations. */
function moved(
  without: ReplicaSide | undefined,
  withStandby: ReplicaSide | undefined,
  key: 'primaryCpuUs' | 'standbyCpuUs',
): string {
  const a = without?.[key];
  const b = withStandby?.[key];
  if (!has(a) || !has(b)) return NOT_MEASURED;
  return `${b.median < a.median ? 'fell' : 'rose'} from ${spread(a)} to ${spread(b)} µs`;
}

/** Scenario 9: where reads ran and what the placement cost the API process. */
export function replicasNote(results: NotesInput): string {
  const r = results.replicas;
  if (!r?.replica) return `Scenario 9 was ${NOT_MEASURED}.`;
  const share = r.replica.replicaShare;
  const all = has(share) && share.min >= 1;
  const rps = over(r.replica.rps?.median, r.primary?.rps?.median);
  return paragraphs(
    `**This run** (${measuredAt(results, 'replicas', r.loadAtStart)}). With \`DATABASE_REPLICA_URL\`, ${has(share) ? `${pct(share.median)} of the reads of a tenant that wrote nothing ran on the standby (${all ? 'all of them in every round' : `${pct(share.min)}–${pct(share.max)} over the rounds`})` : `the standby's share of reads was ${NOT_MEASURED}`}. The primary's CPU per read ${moved(r.primary, r.replica, 'primaryCpuUs')} (what its background processes did meanwhile) and the standby's ${moved(r.primary, r.replica, 'standbyCpuUs')} (replay and WAL receiver at rest without reads), since a standby backend runs the same plans; the standby also answers each pooled connection's state check, repeated every 100 ms at most ([0208](decisions/0208-read-replicas.md)).`,
    `The API process pays for the placement: before each read it asks Redis for the tenant's last write position (one \`GET\`), takes a standby connection and holds it for the read's statements (the list's page and count then run one after the other instead of side by side), and rereads the standby's state on that connection when its last check is over 100 ms old. Its CPU per read with the standby over without it, within each round: ${ratio(r.apiCpuRatio)} (runs of other days are in ${HISTORY}). Reads/s and latency are not figures to read here: the two clusters, both API processes and the load generator share the machine's cores${finite(rps) ? `, and the with-standby server's reads/s was ${num(rps, 2)} × the other's in this run (medians)` : ''}. On separate hosts, the primary's read CPU is what leaves it.`,
  );
}
