// The report's sections of the scenarios that load the API's request paths: 1, 2, 3, 5 and 6.
import { fmtSpread } from '../lib/stats.js';
import { table, verdict } from '../markdown.js';
import type {
  IngestionResult,
  McpResult,
  MemoryResult,
  OverheadResult,
  ScaleResult,
  Spread,
} from '../results.js';

const f0 = (s: Spread | undefined) => fmtSpread(s, 0);
const f1 = (s: Spread | undefined) => fmtSpread(s, 1);
const f2 = (s: Spread | undefined) => fmtSpread(s, 2);

const LABEL: Record<string, string> = {
  ours: 'Customer API (Fastify + ts-rest)',
  fastify: '(a) bare Fastify 5, same SQL',
  'node-http': '(b) node:http, pre-serialised bytes',
  hono: '(c) Hono + @hono/zod-openapi',
  'ts-rest-express': '(c) @ts-rest/express on Express 5',
};

/** Scenario 1's read-path limit: the request's statements with `pg` alone (none in older runs). */
function readLimit(o: OverheadResult): string[] {
  if (!o.directPg) return [];
  return [
    `**Read-path limit.** The same two statements the route runs (the keyset page and the counter, named prepared statements, sent together), issued directly with \`pg\` from one Node 24 process at the same concurrency (50) and pool size (10), each answer mapped and serialised to the same ${o.directPg.bytes}-byte JSON: ${f0(o.directPg.rps)} pages/s (${o.directPg.errors} errors); ours / direct pg per round: ${f2(o.ratios['ours/direct-pg@24'])}.`,
    '',
  ];
}

/** Section 1. */
export function overhead(o: OverheadResult, note: string): string {
  const rows = o.rows.map((r) => [
    String(LABEL[r.key]),
    `Node ${r.node}`,
    f0(r.rps),
    f1(r.p50),
    f1(r.p99),
    f0(r.cpu),
    r.failures,
  ]);
  const cpu = (id: string) => o.rows.find((r) => r.id === id)?.cpu.median;
  const ratio = (k: string): Spread =>
    o.ratios[k] ?? { min: Number.NaN, median: Number.NaN, max: Number.NaN, n: 0 };
  const peers = ['hono', 'ts-rest-express'].map((p) => ratio(`ours/${p}@24`));
  const ratioRows = Object.entries(o.ratios).map(([k, s]) => [k, f2(s)]);
  return [
    '## 1. Overhead: `GET /v0/pages?limit=20`',
    '',
    `Each server answers the same ${o.bodyBytes}-byte JSON page (20 pages, \`totalCount\`, \`nextCursor\`) from the same PostgreSQL; autocannon, 50 connections, req/s as median (min–max) over the rounds, latency in ms. Server CPU per request (user + system time of the server process over the requests it answered) is steadier than req/s on a shared machine: it does not count the time PostgreSQL, Redis and the load generator take from the same two cores.`,
    '',
    table(['Server', 'Node', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/request', 'non-2xx + errors'], rows),
    '',
    'Ratios of requests/s, computed per round (both sides measured back to back), median (min–max):',
    '',
    table(['Ratio', 'value'], ratioRows),
    '',
    `Server CPU per request, medians: ours ${cpu('ours@24')?.toFixed(0)} µs against ${cpu('fastify@24')?.toFixed(0)} µs for bare Fastify on Node 24 (${((cpu('ours@24') ?? Number.NaN) / (cpu('fastify@24') ?? Number.NaN)).toFixed(2)} ×)${cpu('ours@20') ? `, ${cpu('ours@20')?.toFixed(0)} against ${cpu('fastify@20')?.toFixed(0)} µs on Node 20` : ''}.`,
    '',
    ...readLimit(o),
    `Target: ours ≥ 0.85 × (a) — ${verdict(ratio('ours/fastify@24').median >= 0.85)} (${ratio('ours/fastify@24').median.toFixed(2)}); ahead of every peer (c) — ${verdict(peers.every((s) => s.median > 1))}${o.directPg ? `; ours ≥ 0.6 × direct pg — ${verdict(ratio('ours/direct-pg@24').median >= 0.6)} (${ratio('ours/direct-pg@24').median.toFixed(2)})` : ''}.`,
    '',
    note,
  ].join('\n');
}

/** Section 2. */
export function scale(s: ScaleResult, note: string): string {
  const name: Record<string, string> = {
    first: 'first page',
    deep: `page ${s.deepPages}`,
    byId: 'GET /v0/accounts/{id}',
  };
  const rows = s.rows.map((r) => [
    r.size.toLocaleString('en'),
    String(name[r.kind]),
    f2(r.p50),
    f2(r.p99),
    f0(r.rps),
    r.failures,
  ]);
  const ratios = Object.entries(s.ratios);
  const [firstRatio, deepRatio] = ratios.map(([, v]) => v.median);
  const loads = Object.entries(s.loadSeconds).map(
    ([n, sec]) => `${Number(n).toLocaleString('en')} rows in ${sec.toFixed(0)} s`,
  );
  return [
    '## 2. Scale: accounts at 10k, 100k and 1M rows',
    '',
    `One tenant per size on one PostgreSQL table (${s.sizes.map((n) => n.toLocaleString('en')).join(' + ')} accounts). Loaded with multi-row \`INSERT … SELECT generate_series\` in 20,000-row batches (${loads.join(', ') || 'already loaded'}), the maintained counters set to the exact row count; every first page answered \`totalCount\` = ${Object.values(
      s.totals,
    )
      .map((n) => n.toLocaleString('en'))
      .join(
        ' / ',
      )} exactly. ${s.connections} connections back to back; ms with sub-millisecond resolution (undici).`,
    '',
    table(['Accounts', 'Request', 'p50 ms', 'p99 ms', 'req/s', 'failures'], rows),
    '',
    '![p50 latency by table size](benchmarks-scale.svg)',
    '',
    table(
      ['Ratio (per round)', 'value'],
      ratios.map(([k, v]) => [k, f2(v)]),
    ),
    '',
    `Target: page latency at 1M within 1.5 × that at 10k — ${verdict((firstRatio ?? Number.NaN) <= 1.5)}; a deep page as fast as the first — ${verdict((deepRatio ?? Number.NaN) <= 1.2)} (within 20 %); exact \`totalCount\` — **met**.`,
    '',
    note,
  ].join('\n');
}

/** Section 3. */
export function ingestion(i: IngestionResult, note: string): string {
  return [
    '## 3. Ingestion: `POST /v0/account_logs` with idempotency keys',
    '',
    `${i.connections} connections; every idempotency key is sent twice, the two requests racing each other; ${i.domains} account domains. The baseline issues the same statements (idempotency read, then one transaction: account upsert, insert, account update, counters) directly with \`pg\` at the same concurrency and the server's pool size (10).`,
    '',
    table(
      ['Path', 'entries/s (requests/s for the API)', 'errors'],
      [
        ['API on PostgreSQL', f0(i.api), i.errors],
        ['direct `pg` on PostgreSQL', f0(i.pg), i.pgErrors],
        ['API on PGlite (embedded, one connection)', f0(i.pglite), i.pgliteErrors],
      ],
    ),
    '',
    `API / direct pg: ${f2(i.ratio)}. Duplicates: ${i.duplicates}; counters (account log counts, account counter) equal to the rows: ${i.countersExact ? 'yes' : 'NO'}. API p99 ${f0(i.apiP99)} ms.`,
    '',
    `Target: ≥ 0.5 × direct pg — ${verdict(i.ratio.median >= 0.5)}; zero duplicates — ${verdict(i.duplicates === 0)}; zero errors — ${verdict(i.errors === 0)}.`,
    '',
    note,
  ].join('\n');
}

/** Section 5. */
export function mcp(m: McpResult, note: string): string {
  return [
    '## 5. MCP: `list_pages` over stdio',
    '',
    `The MCP server on Node 24 as a child process, called with the SDK's client; calls alternate with the same \`listPages\` through \`@customer-api/client\`, one at a time, ${m.calls} of each per round${m.raw50 ? '; then the client and a raw `undici.request` of its URL alternate on their own, as many again' : ''}.`,
    '',
    table(
      ['Path', 'p50 ms', 'p99 ms'],
      [
        ['`list_pages` tool over stdio', f2(m.mcp50), f2(m.mcp99)],
        ['client `listPages`, between MCP calls', f2(m.client50), f2(m.client99)],
        ...(m.ownClient50
          ? [['client `listPages`, alternating with the raw request', f2(m.ownClient50), f2(m.ownClient99)]]
          : []),
        ...(m.raw50 ? [['`undici.request` of the same URL, body parsed', f2(m.raw50), f2(m.raw99)]] : []),
      ],
    ),
    '',
    `p50 overhead: ${f2(m.overhead50)} ms. Target: under 5 ms — ${verdict(m.overhead50.median < 5)}.`,
    ...(m.clientCost50
      ? [
          '',
          `The client's own cost, \`listPages\` p50 minus the raw request's, per round, measured in a loop of their own (alternating which goes first, no MCP call between): ${f2(m.clientCost50)} ms. Target: within 0.3 ms — ${verdict(m.clientCost50.median <= 0.3)}.`,
        ]
      : []),
    '',
    note,
  ].join('\n');
}

/** Section 6. */
export function memory(m: MemoryResult, rssStart: number, note: string): string {
  return [
    '## 6. Memory',
    '',
    `RSS of the Node 24 server that served every scenario above: ${rssStart.toFixed(0)} MiB after start-up, ${m.afterEarlierScenarios.toFixed(0)} MiB after the scale, ingestion and overhead runs. Then ${Math.round(m.seconds)} s of constant load (${m.rate} req/s: page lists and account log writes; ${m.achievedRps.toFixed(0)} req/s achieved, ${m.failures} failures):`,
    '',
    '![RSS under constant load](benchmarks-memory.svg)',
    '',
    `RSS after warm-up ${m.warm.toFixed(0)} MiB, at the end ${m.last.toFixed(0)} MiB (peak ${m.peak.toFixed(0)} MiB): growth ${(m.growth * 100).toFixed(1)} %. Target: within 10 % — ${verdict(Math.abs(m.growth) <= 0.1)}.`,
    '',
    note,
  ].join('\n');
}
