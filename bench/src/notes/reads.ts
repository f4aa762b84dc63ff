// Notes of the run's heading and of scenarios 1-3: overhead, scale and ingestion.
import {
  atLeast,
  atMost,
  finite,
  HISTORY,
  has,
  measuredAt,
  NOT_MEASURED,
  num,
  over,
  paragraphs,
  ratio,
  verdict,
} from './format.js';
import type { NotesInput, ScaleInput, Spread } from './input.js';

/** The note under the report's heading: the machine and how to read its figures. */
export function introNote(results: NotesInput): string {
  const cpus = results.machine?.cpus;
  const machine = finite(cpus) ? `a shared ${cpus}-core development machine` : 'a shared development machine';
  const cores = finite(cpus) ? `its ${cpus === 2 ? 'two' : num(cpus)} cores` : 'its cores';
  const mode = results.smoke
    ? ' This is a smoke run: its figures only show that every scenario produced them.'
    : results.quick
      ? ' This is a quick run: one round of short runs, not to be compared with the targets.'
      : '';
  const again = Object.keys(results.remeasured ?? {});
  const alone = again.length
    ? ` Some sections were measured again alone after the run (${again.join(', ')}); each says when, and their figures saw another machine state than the rest.`
    : '';
  return [
    `The machine is ${machine}: the servers, PostgreSQL, Redis and the load generators share ${cores},`,
    'and absolute figures vary by tens of percent between runs (see the load average below). Ratios',
    `within a round are the figures to read.${mode}${alone} Every figure on this page is from the run it`,
    `describes; earlier runs and the comparisons between builds behind each change are in ${HISTORY}.`,
  ].join(' ');
}

/** Median of `rows[id].field` of scenario 1. */
function rowMedian(results: NotesInput, id: string, field: 'rps' | 'cpu'): number | undefined {
  const s = results.overhead?.rows?.find((r) => r.id === id)?.[field];
  return has(s) ? s.median : undefined;
}

/** Scenario 1: what ours costs over a bare route and over the statements alone. */
export function overheadNote(results: NotesInput): string {
  const o = results.overhead;
  if (!o?.rows?.length) return `Scenario 1 was ${NOT_MEASURED}.`;
  const ratios = o.ratios ?? {};
  const fastify = ratios['ours/fastify@24'];
  const direct = ratios['ours/direct-pg@24'];
  const bareOverDirect = over(rowMedian(results, 'fastify@24', 'rps'), o.directPg?.rps?.median);
  const cpuOurs = rowMedian(results, 'ours@24', 'cpu');
  const cpuBare = rowMedian(results, 'fastify@24', 'cpu');
  const cpuRatio = over(cpuOurs, cpuBare);
  const thisRun = [
    `**This run** (${measuredAt(results, 'overhead')}).`,
    has(fastify)
      ? `Ours answered ${ratio(fastify)} × bare Fastify's requests per second (target 0.85: ${verdict(fastify.median >= 0.85)}, ${atLeast(fastify, 0.85)}).`
      : `Ours against bare Fastify was ${NOT_MEASURED}.`,
    has(direct)
      ? `Against the read-path limit, the same statements issued directly with \`pg\`, ours reached ${ratio(direct)} × (target 0.6: ${verdict(direct.median >= 0.6)}, ${atLeast(direct, 0.6)}).`
      : 'The read-path limit (the statements issued directly with `pg`) was not measured in this run.',
    finite(bareOverDirect) && o.directPg?.rps
      ? `Bare Fastify itself, the same SQL behind a plain route, answered ${num(bareOverDirect, 2)} × the direct-pg rate (medians: ${num(rowMedian(results, 'fastify@24', 'rps') ?? 0)} against ${num(o.directPg.rps.median)} pages/s), so 0.6 × direct pg asks ours for ${num(0.6 / bareOverDirect, 2)} × the bare route on this machine.`
      : undefined,
    finite(cpuRatio) && finite(cpuOurs) && finite(cpuBare)
      ? `Server CPU per request, steadier than req/s on a shared machine, was ${num(cpuOurs)} µs for ours against ${num(cpuBare)} µs for bare Fastify (${num(cpuRatio, 2)} ×).`
      : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const peers = (['hono', 'ts-rest-express'] as const)
    .map((p) => [p, ratios[`ours/${p}@24`]] as const)
    .filter((e): e is readonly [(typeof e)[0], Spread] => has(e[1]));
  const peerLine = peers.length
    ? `Against the peers, ours / ${peers.map(([p, s]) => `${p} ${ratio(s)} (${s.median > 1 ? 'ahead' : 'behind'})`).join(', ours / ')}.`
    : undefined;
  const node = ratios['node24/node20 (ours)'];
  return paragraphs(
    thisRun,
    `**Where the time goes.** Profiles of ours under this load (${HISTORY}) found the two statements' socket writes and the response's write the largest items, as for bare Fastify; the rest is spread over the driver's row parsing, serialisation, collections, authentication, the tenant's database share and metrics, none of them a cost left to remove on its own. \`timestamptz\` values are parsed from their characters rather than through a rebuilt ISO string.`,
    `**What changed since the first full run.** The first full run spent its extra CPU in drizzle-orm (building the two statements' SQL and mapping every row) and in a Redis round trip per request for the rate limit. Since then (decision records "Hot reads skip the ORM", [0040](decisions/0040-hot-reads-skip-the-orm.md), and "Shared rate-limit counts are sent in batches", [0035](decisions/0035-shared-rate-limit-counts-are-sent-in-batches.md)):`,
    [
      '- `listPages` and every `totalCount` read run fixed SQL on the driver as named prepared statements,',
      '  selecting columns under their drizzle keys, and `timestamptz` values are parsed from their',
      "  characters instead of by node-postgres' general parser (the bare route and the peers keep that",
      '  one, which is why ours can pass them);',
      '- the rate limiter counts locally far from the limit and sends increments to Redis every 50 ms',
      '  (exact within 5 % of the limit);',
      '- request ids draw randomness from a pooled buffer.',
    ].join('\n'),
    `Every statement runs on an explicit handle through one data-access port ([0207](decisions/0207-data-access-port.md)); its comparison with the build before it is in the history. ${peerLine ?? ''} Request validation stays on; response validation is off in production, as in the other servers.${has(node) ? ` Node 24 against Node 20 for our server: ${ratio(node)} × the requests per second.` : ''}`,
  );
}

/** The ratio of scenario 2 whose name starts with `prefix`. */
function scaleRatio(s: ScaleInput, prefix: string): Spread | undefined {
  const found = Object.entries(s.ratios ?? {}).find(([k]) => k.startsWith(prefix));
  return found?.[1];
}

/** A ratio of scenario 2 against its target, in words. */
function scaleFigure(name: string, s: Spread | undefined, target?: number): string {
  if (!has(s)) return `${name} ${NOT_MEASURED}`;
  if (target === undefined) return `${name} ${ratio(s)} ×`;
  return `${name} ${ratio(s)} × (target ${num(target, 1)}: ${verdict(s.median <= target)}, ${atMost(s, target)})`;
}

/** Scenario 2: why page latency does not follow the table's size. */
export function scaleNote(results: NotesInput): string {
  const s = results.scale;
  const design = `Keyset pagination keeps every page an index range scan on \`(tenant_id, created_at, id)\` whatever
the offset, and \`totalCount\` is one primary-key read of the maintained counter, so by design neither the
first page nor a deep page nor a read by id grows with the table.`;
  if (!s?.ratios) return paragraphs(design, `Scenario 2 was ${NOT_MEASURED}.`);
  const first = scaleRatio(s, 'first page');
  const deep = scaleRatio(s, 'deep page');
  const byId = scaleRatio(s, 'GET account');
  const figures = [
    scaleFigure('the first page at the largest size over the smallest', first, 1.5),
    scaleFigure(
      `${finite(s.deepPages) ? `page ${num(s.deepPages)}` : 'a deep page'} over the first page at the largest size`,
      deep,
      1.2,
    ),
    scaleFigure('a read by id at the largest size over the smallest', byId),
  ];
  const noisy = [first, deep].some(
    (r, i) => has(r) && r.median > (i === 0 ? 1.5 : 1.2) && r.min <= (i === 0 ? 1.5 : 1.2),
  );
  const clients = finite(s.connections) ? `${s.connections} clients` : 'a few clients';
  return paragraphs(
    design,
    `In this run (${measuredAt(results, 'scale')}): ${figures.join('; ')}.${noisy ? ' A median beyond its target while some rounds were within it is a difference this run could not tell from its own spread.' : ''} Latencies are those of ${clients} in a closed loop on the shared machine, so p99 mostly shows scheduling noise.`,
  );
}

/** Scenario 3: what the ratio to direct pg measures. */
export function ingestionNote(results: NotesInput): string {
  const i = results.ingestion;
  const what = `Every request does real work: the idempotency read, then one transaction with the
account upsert, the insert, the account's counter update and (for new accounts) the tenant
counters. The baseline issues exactly these statements from one process with no HTTP, so the
ratio is the cost of HTTP, validation, auth and rate limiting around them, on two cores shared with
PostgreSQL. The idempotency read, the domain lookup and the counter upserts run as prepared
statements, and the rate limiter does not ask Redis per request (the first full run's ratio,
before them, is in the history).`;
  if (!has(i?.ratio)) return paragraphs(what, `Scenario 3 was ${NOT_MEASURED}.`);
  const r = i.ratio;
  const pglite = over(i.pglite?.median, i.api?.median);
  return paragraphs(
    what,
    `In this run (${measuredAt(results, 'ingestion')}) the API reached ${ratio(r)} × direct pg (target 0.5: ${verdict(r.median >= 0.5)}, ${atLeast(r, 0.5)}).`,
    `PGlite runs every statement on its one connection inside the server process, so its rate is that
of a single writer${finite(pglite) ? ` (${num(pglite, 2)} × the API on PostgreSQL here, medians)` : ''}; it is reported for comparison only.`,
  );
}
