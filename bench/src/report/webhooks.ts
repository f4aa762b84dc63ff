// The report's section of scenario 4: our dispatcher, plain undici POSTs, the job queues.
import { fmtSpread } from '../lib/stats.js';
import { table, verdict } from '../markdown.js';
import type { Notes } from '../notes/index.js';
import { peersSection } from '../report-peers.js';
import type { BacklogResult, DrainCpu, Spread, WebhooksResult } from '../results.js';

const f0 = (s: Spread | undefined) => fmtSpread(s, 0);
const f2 = (s: Spread | undefined) => fmtSpread(s, 2);

const pct = (x: number) => `${(Math.max(0, x) * 100).toFixed(1)} %`;

/** Scenario 4's large backlog (first round only; none in older runs). */
function backlog(b: BacklogResult | undefined): string[] {
  if (!b) return [];
  return [
    '',
    `**Large backlog.** ${b.events.toLocaleString('en')} pending events spread over ${b.tenants} tenants with one subscription each (committed in ${b.emitSeconds.toFixed(0)} s before the dispatcher starts), drained by one dispatcher with the default per-tenant share (4 of 16 slots): ${b.rate.toFixed(0)} deliveries/s. Its RSS from warm-up (5 % delivered) to the last arrival: ${b.rssStart.toFixed(0)} MiB at the start, ${b.rssMin.toFixed(0)}–${b.rssMax.toFixed(0)} MiB during the drain, ${(b.rssEnd ?? Number.NaN).toFixed(0)} MiB at the end: at most ${pct(b.rssMax / b.rssStart - 1)} above the start, at most ${pct(1 - b.rssMin / b.rssStart)} below it. Target: within ±10 % of the start — ${verdict(b.rssMax <= 1.1 * b.rssStart && b.rssMin >= 0.9 * b.rssStart)}${b.rssMax <= 1.1 * b.rssStart ? ' (no growth; a fall is pages the kernel took back)' : ''}.`,
  ];
}

/** Medians of the CPU per delivery of each process of a drain (empty for runs before it was measured). */
function cpuCell(cpu: DrainCpu<Spread> | undefined): string {
  if (!cpu) return '';
  return [cpu.dispatcher, cpu.postgres, cpu.receiver].map((c) => c.median.toFixed(0)).join(' / ');
}

/** Section 4. */
export function webhooks(w: WebhooksResult, notes: Pick<Notes, 'webhooks' | 'webhookPeers'>): string {
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
    ...peersSection(w, notes.webhookPeers),
    ...backlog(w.backlog),
    '',
    notes.webhooks,
  ].join('\n');
}
