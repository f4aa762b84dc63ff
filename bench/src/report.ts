// Renders a run's results as docs/benchmarks.md (tables, verdicts, the notes beside each figure)
// and SVG charts.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { lineChart } from './chart.mjs';
import { fmtSpread } from './lib/stats.mjs';
import { NOTES } from './notes.mjs';
import { peersSection } from './report-peers.mjs';
import { renderCitus } from './scenarios/citus.mjs';
import { renderConditional } from './scenarios/conditional.mjs';
import { renderIdempotency } from './scenarios/idempotency.mjs';
import { renderReplicaReads } from './scenarios/replica-reads.mjs';

/** What the run ran on. */
export function machine() {
  const pg = (() => {
    try {
      return execFileSync('psql', ['-tA', '-h', '127.0.0.1', '-U', 'postgres', '-c', 'SHOW server_version'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    } catch {
      return 'unknown';
    }
  })();
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    loadAtStart: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' / '),
    postgres: pg,
  };
}

const table = (head, rows) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
const verdict = (ok) => (ok ? '**met**' : '**missed**');
const f0 = (s) => fmtSpread(s, 0);
const f1 = (s) => fmtSpread(s, 1);
const f2 = (s) => fmtSpread(s, 2);
const LABEL = {
  ours: 'Customer API (Fastify + ts-rest)',
  fastify: '(a) bare Fastify 5, same SQL',
  'node-http': '(b) node:http, pre-serialised bytes',
  hono: '(c) Hono + @hono/zod-openapi',
  'ts-rest-express': '(c) @ts-rest/express on Express 5',
};

/** Scenario 1's read-path limit: the request's statements with `pg` alone (none in older runs). */
function readLimit(o) {
  if (!o.directPg) return [];
  return [
    `**Read-path limit.** The same two statements the route runs (the keyset page and the counter, named prepared statements, sent together), issued directly with \`pg\` from one Node 24 process at the same concurrency (50) and pool size (10), each answer mapped and serialised to the same ${o.directPg.bytes}-byte JSON: ${f0(o.directPg.rps)} pages/s (${o.directPg.errors} errors); ours / direct pg per round: ${f2(o.ratios['ours/direct-pg@24'])}.`,
    '',
  ];
}

function overhead(o) {
  const rows = o.rows.map((r) => [
    LABEL[r.key],
    `Node ${r.node}`,
    f0(r.rps),
    f1(r.p50),
    f1(r.p99),
    f0(r.cpu),
    r.failures,
  ]);
  const cpu = (id) => o.rows.find((r) => r.id === id)?.cpu.median;
  const ratio = (k) => o.ratios[k];
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
    `Server CPU per request, medians: ours ${cpu('ours@24')?.toFixed(0)} µs against ${cpu('fastify@24')?.toFixed(0)} µs for bare Fastify on Node 24 (${(cpu('ours@24') / cpu('fastify@24')).toFixed(2)} ×)${cpu('ours@20') ? `, ${cpu('ours@20').toFixed(0)} against ${cpu('fastify@20')?.toFixed(0)} µs on Node 20` : ''}.`,
    '',
    ...readLimit(o),
    `Target: ours ≥ 0.85 × (a) — ${verdict(ratio('ours/fastify@24').median >= 0.85)} (${ratio('ours/fastify@24').median.toFixed(2)}); ahead of every peer (c) — ${verdict(peers.every((s) => s.median > 1))}${o.directPg ? `; ours ≥ 0.6 × direct pg — ${verdict(ratio('ours/direct-pg@24').median >= 0.6)} (${ratio('ours/direct-pg@24').median.toFixed(2)})` : ''}.`,
    '',
    NOTES.overhead,
  ].join('\n');
}

function scale(s) {
  const name = { first: 'first page', deep: `page ${s.deepPages}`, byId: 'GET /v0/accounts/{id}' };
  const rows = s.rows.map((r) => [
    r.size.toLocaleString('en'),
    name[r.kind],
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
    `Target: page latency at 1M within 1.5 × that at 10k — ${verdict(firstRatio <= 1.5)}; a deep page as fast as the first — ${verdict(deepRatio <= 1.2)} (within 20 %); exact \`totalCount\` — **met**.`,
    '',
    NOTES.scale,
  ].join('\n');
}

function ingestion(i) {
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
    NOTES.ingestion,
  ].join('\n');
}

const pct = (x) => `${(Math.max(0, x) * 100).toFixed(1)} %`;

/** Scenario 4's large backlog (first round only; none in older runs). */
function backlog(b) {
  if (!b) return [];
  return [
    '',
    `**Large backlog.** ${b.events.toLocaleString('en')} pending events spread over ${b.tenants} tenants with one subscription each (committed in ${b.emitSeconds.toFixed(0)} s before the dispatcher starts), drained by one dispatcher with the default per-tenant share (4 of 16 slots): ${b.rate.toFixed(0)} deliveries/s. Its RSS from warm-up (5 % delivered) to the last arrival: ${b.rssStart.toFixed(0)} MiB at the start, ${b.rssMin.toFixed(0)}–${b.rssMax.toFixed(0)} MiB during the drain, ${b.rssEnd.toFixed(0)} MiB at the end: at most ${pct(b.rssMax / b.rssStart - 1)} above the start, at most ${pct(1 - b.rssMin / b.rssStart)} below it. Target: within ±10 % of the start — ${verdict(b.rssMax <= 1.1 * b.rssStart && b.rssMin >= 0.9 * b.rssStart)}${b.rssMax <= 1.1 * b.rssStart ? ' (no growth; a fall is pages the kernel took back)' : ''}.`,
  ];
}

/** Medians of the CPU per delivery of each process of a drain (empty for runs before it was measured). */
function cpuCell(cpu) {
  if (!cpu) return '';
  return [cpu.dispatcher, cpu.postgres, cpu.receiver].map((c) => c.median.toFixed(0)).join(' / ');
}

function webhooks(w) {
  return [
    '## 4. Webhook delivery',
    '',
    `A backlog of ${w.events} \`page.version.created\` events for one subscription, delivered by \`customer-api dispatch\` processes (16 deliveries in flight each) to a loopback receiver that answers 200 at once; rate from first to last arrival. Baseline: the same number of plain undici POSTs, 16 in flight. Latency: events committed one at a time at ${w.latencyRate}/s with one idle dispatcher, ${w.samples} samples.`,
    '',
    table(
      [
        'Sender',
        'deliveries/s',
        '/ undici',
        'transactions per delivery',
        'CPU µs per delivery: dispatcher / PostgreSQL / receiver',
      ],
      [
        [
          '1 dispatcher',
          f0(w.one),
          f2(w.ratioOne),
          w.transactionsOne ? f2(w.transactionsOne) : '',
          cpuCell(w.cpuOne),
        ],
        [
          '2 dispatchers',
          f0(w.two),
          f2(w.ratioTwo),
          w.transactionsTwo ? f2(w.transactionsTwo) : '',
          cpuCell(w.cpuTwo),
        ],
        ['plain undici POSTs', f0(w.undici), '1', '0', ''],
      ],
    ),
    '',
    `Commit-to-receipt latency at ${w.latencyRate} events/s to one dispatcher that has delivered a second of events at that rate (its start-up): p50 ${f0(w.p50)} ms, p99 ${f0(w.p99)} ms.`,
    '',
    w.peers
      ? `Target: p50 under 20 ms — ${verdict(w.p50.median < 20)}; the rate targets are against the job queues below.`
      : `Target: 1 dispatcher ≥ 0.5 × undici — ${verdict(w.ratioOne.median >= 0.5)}; p50 under 20 ms — ${verdict(w.p50.median < 20)}.`,
    ...peersSection(w),
    ...backlog(w.backlog),
    '',
    NOTES.webhooks,
  ].join('\n');
}

function mcp(m) {
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
    NOTES.mcp,
  ].join('\n');
}

function memory(m, rssStart) {
  return [
    '## 6. Memory',
    '',
    `RSS of the Node 24 server that served every scenario above: ${rssStart.toFixed(0)} MiB after start-up, ${m.afterEarlierScenarios.toFixed(0)} MiB after the scale, ingestion and overhead runs. Then ${Math.round(m.seconds)} s of constant load (${m.rate} req/s: page lists and account log writes; ${m.achievedRps.toFixed(0)} req/s achieved, ${m.failures} failures):`,
    '',
    '![RSS under constant load](benchmarks-memory.svg)',
    '',
    `RSS after warm-up ${m.warm.toFixed(0)} MiB, at the end ${m.last.toFixed(0)} MiB (peak ${m.peak.toFixed(0)} MiB): growth ${(m.growth * 100).toFixed(1)} %. Target: within 10 % — ${verdict(Math.abs(m.growth) <= 0.1)}.`,
    '',
    NOTES.memory,
  ].join('\n');
}

/** B's worse p99 ratio (pages or account) during an attack against `quiet`. */
const p99Ratio = (r, quiet) => Math.max(r.pages.p99 / quiet.pages.p99, r.account.p99 / quiet.account.p99);

/** One build's isolation rows: B's latency per attack against its quiet figures. */
function isolationRows(run) {
  const quiet = run.rows[0];
  const cell = (r, key) =>
    `${r[key].p50.toFixed(1)} / ${r[key].p99.toFixed(1)}${r[key].non2xx ? ` (${r[key].non2xx} non-2xx)` : ''}`;
  const ratio = (r) => p99Ratio(r, r.quiet ?? quiet).toFixed(2);
  const baseline = (r) => {
    const before = r.quiet ?? quiet;
    return `${before.pages.p99.toFixed(1)} / ${before.account.p99.toFixed(1)}${r.interleaved ? ' *' : ''}`;
  };
  const attacker = (r) => {
    if (r.bDeliveredAfterMs !== undefined) {
      const wait = `${r.bDeliveredAfterMs >= 120_000 ? 'not within ' : ''}${(r.bDeliveredAfterMs / 1000).toFixed(1)} s`;
      return `subscriptions ${JSON.stringify(r.subscriptions)}; B's event after ${wait}`;
    }
    const extra = r.stored !== undefined ? `; ${r.stored} messages of ${r.messageKiB} KiB stored` : '';
    return `${JSON.stringify(r.attacker ?? {})}${extra}`;
  };
  return run.rows.map((r) => [
    `${run.label}: ${r.attack}`,
    cell(r, 'pages'),
    cell(r, 'account'),
    r.attack === 'quiet' ? '' : baseline(r),
    r.attack === 'quiet' ? '1' : ratio(r),
    r.rssMiB ? r.rssMiB.toFixed(0) : '',
    r.attack === 'quiet' ? '' : attacker(r),
  ]);
}

function isolation(iso) {
  const runs = [iso.before, iso.after].filter(Boolean);
  const after = iso.after;
  const quiet = after.rows[0];
  const attacks = after.rows.slice(1);
  const within = attacks.every(
    (r) => p99Ratio(r, r.quiet ?? quiet) <= 2 && r.pages.non2xx + r.account.non2xx === 0,
  );
  const webhook = attacks.find((r) => r.bDeliveredAfterMs !== undefined);
  return [
    '## 7. Isolation: one tenant cannot slow down another',
    '',
    `Tenant B sends \`GET /v0/pages?limit=20\` and \`GET /v0/accounts/{id}\`, one request every 50 ms each over four keys, for ${after.seconds} s quiet and then during each attack of tenant A (default limits: 1,000 requests a minute per key, the database share, the statement timeout; PostgreSQL, dispatcher in the server process). Attacks: searches of the trash whose text has no letters (\`%\` × 200, 8 in flight) over a trash of trashed assets inserted by SQL; the largest messages the server takes, then their history read 16 at a time; 300 subscriptions asked for to a receiver answering after 9 s plus version events, then B's own event 2 s later; idle keyless connections and trickled bodies. A shared machine's load drifts over a run by more than the margin, so each attack has a quiet baseline of its own: for the trash and history attacks (paced requests), B measures in windows alternating between A paused (its requests under way cancelled) and A attacking, four pairs of a quarter of the time each, sampling each window after its first second; for the webhook and connection attacks (state a pause would not undo), B measures quiet again for as long just before (after a few seconds for the previous attack to wind down). Figures: p50 / p99 in ms; ratio: B's worse p99 against its quiet p99 (the first quiet phase for a run that recorded no other); RSS: the server's peak during the attack.`,
    '',
    table(
      [
        'Build: attack',
        'B pages p50 / p99',
        'B account p50 / p99',
        'B quiet p99: A paused (*) or just before (pages / account)',
        'p99 ratio',
        'RSS MiB',
        'A got',
      ],
      runs.flatMap(isolationRows),
    ),
    '',
    `Targets: B's p99 within 2 × quiet and 0 non-2xx in every attack — ${verdict(within)}; B's event delivered within 5 s — ${webhook ? verdict(webhook.bDeliveredAfterMs <= 5000) : 'not measured (the webhook attack did not run)'}; server RSS under 1 GiB — ${verdict(after.rssMaxMiB < 1024)} (peak ${after.rssMaxMiB.toFixed(0)} MiB).`,
    '',
    NOTES.isolation,
  ].join('\n');
}

function charts(results) {
  const out = {};
  if (results.scale?.rows) {
    const kinds = { first: 'first page', deep: `page ${results.scale.deepPages}`, byId: 'GET account' };
    out['benchmarks-scale.svg'] = lineChart({
      title: 'p50 latency (ms) by accounts in the tenant',
      logX: true,
      series: Object.entries(kinds).map(([kind, label]) => ({
        label,
        points: results.scale.rows.filter((r) => r.kind === kind).map((r) => [r.size, r.p50.median]),
      })),
    });
  }
  if (results.memory?.samples) {
    out['benchmarks-memory.svg'] = lineChart({
      title: 'server RSS (MiB) over constant load (s)',
      yFromZero: true,
      series: [{ label: 'RSS', points: results.memory.samples.map((s) => [s.t, s.rss]) }],
    });
  }
  return out;
}

/** The markdown report and chart files of a run. */
export function renderReport(results) {
  const m = results.machine;
  const head = [
    '# Benchmarks',
    '',
    '<!-- generated by bench/src/main.mjs; run `pnpm bench`; do not edit (notes: bench/src/notes.mjs) -->',
    '',
    '`pnpm bench` runs every scenario in one go (`pnpm bench --quick`: the same tables from one round of short runs, whose figures are not to be compared with the targets, about ten minutes on this machine, written to `bench/results/quick.md`; it needs no Node 20. `pnpm bench --smoke`, run by CI on Node 24: every scenario once at the smallest sizes that still produce each figure, about two minutes, written to `bench/results/smoke.md`; it fails only when a scenario throws or leaves a figure empty). It needs `pnpm build` and PostgreSQL at 127.0.0.1:5432, and uses its own databases `bench` and `bench_hooks` (a full run recreates them). Servers, dispatchers and the MCP server run on Node 24 (the production runtime); scenario 1 repeats on Node 20. Load generators run on loopback, bounded in time. Every figure is the median (min–max) over 3 rounds, and every ratio is computed within a round, so both sides saw the same machine state.',
    '',
    NOTES.intro,
    '',
    table(
      ['Run', 'value'],
      [
        ['date', results.startedAt],
        ['mode', results.smoke ? 'smoke' : results.quick ? 'quick' : 'full'],
        ['duration', `${(results.seconds / 60).toFixed(1)} min`],
        ['machine', `${m.cpus} × ${m.model}, ${m.memGiB} GiB, ${m.kernel}`],
        ['load average at start (1/5/15 min)', m.loadAtStart],
        ...Object.entries(results.remeasured ?? {}).map(([name, at]) => [`re-measured: ${name}`, at]),
        [
          'Node',
          `${results.versions.node24} (servers), ${results.versions.node20} (scenario 1, beside Node 24)`,
        ],
        ['PostgreSQL', m.postgres],
      ],
    ),
  ].join('\n');
  const parts = [head];
  if (results.overhead?.rows) parts.push(overhead(results.overhead));
  if (results.scale?.rows) parts.push(scale(results.scale));
  if (results.ingestion?.api) parts.push(ingestion(results.ingestion));
  if (results.webhooks?.one) parts.push(webhooks(results.webhooks));
  if (results.mcp?.mcp50) parts.push(mcp(results.mcp));
  if (results.memory?.samples) parts.push(memory(results.memory, results.rssStart));
  if (results.isolation?.after) parts.push(isolation(results.isolation));
  if (results.idempotency?.latency) parts.push(renderIdempotency(results.idempotency, table));
  if (results.replicas?.replica) parts.push(renderReplicaReads(results.replicas, table, NOTES.replicas));
  if (results.citus?.skipped || results.citus?.loads)
    parts.push(renderCitus(results.citus, table, NOTES.citus));
  if (results.conditional?.latency) parts.push(renderConditional(results.conditional, table));
  parts.push(NOTES.assetContent);
  return { markdown: `${parts.join('\n\n')}\n`, charts: charts(results) };
}
