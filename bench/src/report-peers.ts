// Scenario 4's table against the job queues (webhooks.peers, webhooks.peersOurs, webhooks.vsBestPeer)
// and its targets, in Markdown.
import { fmtSpread } from './lib/stats.js';
import { table, verdict } from './markdown.js';
import type {
  PeerFigures,
  PeerPlan,
  PurgeBesideDrain,
  Spread,
  WebhookPeersResult,
  WebhooksResult,
} from './results.js';

const f0 = (s: Spread | undefined) => fmtSpread(s, 0);
const f2 = (s: Spread | undefined) => fmtSpread(s, 2);
const n = (v: number) => v.toLocaleString('en');
const cell = (s: Spread | undefined, digits = 0) => (s ? fmtSpread(s, digits) : '—');

/** One row of the main table: deliveries/s and ours / it per size, enqueue time, CPU, RSS. */
function rateRow(name: string, s: PeerFigures, sizes: number[]): string[] {
  const bySize = sizes.flatMap((size) => {
    const at = s.bySize[size];
    return [f0(at?.deliveriesPerS), name === 'ours' ? '1' : f2(at?.oursOver)];
  });
  const largest = sizes.at(-1) ?? 0;
  return [
    s.label + (name === 'bullmq' ? ' ¹' : ''),
    ...bySize,
    fmtSpread(s.bySize[largest]?.enqueueSeconds, 2),
    `${s.cpuUsPerDelivery.median.toFixed(0)} / ${s.databaseCpuUsPerDelivery.median.toFixed(0)} / ${s.receiverCpuUsPerDelivery.median.toFixed(0)}`,
    s.rssMiB.median.toFixed(0),
  ];
}

/** How the drains were run: warm workers and a receiver of its own since `warmupEvents` is recorded. */
function drainSetup(run: PeerPlan): string {
  const sizes = run.sizes.map(n).join(' and ');
  if (!run.warmupEvents) {
    return `Backlogs of ${sizes} events over ${run.tenants} tenants, enqueued in batches of 200 before the workers start (enqueue time apart); rate from the first to the last arrival.`;
  }
  return `Every system runs in the same setup: one receiver in a process of its own (the same code for all, so that no system's deliveries share an event loop with the bench), worker processes started for each backlog and warmed by a drain of ${n(run.warmupEvents)} events of their own, unmeasured (start-up, connection pools, prepared statements, compiled code), the database vacuumed before they start and checkpointed before the backlog (no system pays for the dead rows and dirty pages of the one before). Backlogs of ${sizes} events over ${run.tenants} tenants, committed at once while the warm workers idle (batches of 200 in one transaction, which runs ANALYZE before its commit so that the planner's statistics describe the backlog, as autovacuum's would for a backlog that stays, rather than whatever table the last autovacuum saw; BullMQ: added while its queue is paused, then resumed), enqueue time apart (without the ANALYZE); rate from the first to the last arrival, CPU from the commit to the last arrival. Workers, each in its documented setup for throughput unless named defaults: ours \`customer-api dispatch\` (1 or 2 processes, every tenant allowed all 16 slots); graphile-worker \`run()\` with 16 concurrent jobs, either its defaults otherwise (a pool of 10, a database fetch per job) or a local queue of concurrency + 1 jobs with completions batched (the settings its release notes recommend for high concurrency, below); pg-boss one \`work()\` on a \`notify\` queue fetching batches of 16 and fetching again at once while batches come back full; BullMQ one \`Worker\` with concurrency 16, completed jobs removed; plain undici 16 POSTs in flight.`;
}

/** The section on the peers; empty for reports measured before they were. */
export function peersSection(w: WebhooksResult, note: string): string[] {
  if (!w.peers || !w.peerRun || !w.peersOurs || !w.vsBestPeer) return [];
  const peers: WebhookPeersResult['peers'] = w.peers;
  const run = w.peerRun;
  const sizes = run.sizes;
  const largest = sizes.at(-1) ?? 0;
  const ours = w.peersOurs;
  const vs = w.vsBestPeer;
  const best = peers[vs.peer];
  const durableNames = Object.keys(peers).filter((k) => peers[k]?.durable);
  const oursRow = (name: string) => {
    const figures = ours[name];
    return figures ? [rateRow(name, figures, sizes)] : [];
  };
  const rows = [
    ...oursRow('ours'),
    ...oursRow('ours-2'),
    ...oursRow('ours-purging'),
    ...Object.entries(peers).map(([name, s]) => rateRow(name, s, sizes)),
  ];
  const withLog = Object.entries(peers).flatMap(([, s]) =>
    s.withLogRow ? [{ ...s, withLogRow: s.withLogRow }] : [],
  );
  const quality = [...(ours.ours ? [ours.ours] : []), ...Object.values(peers).filter((s) => s.p50Ms)];
  return [
    '',
    `### Against the job queues a team would pick`,
    '',
    `The same deliveries through each system, ${run.rounds} round${run.rounds > 1 ? 's' : ''} on a fresh database each, the systems in an order rotated by round (ratios are taken within a round: a shared machine's load drifts between systems). Every peer job builds the body ours sends (\`{timestamp, eventId, payload}\`), signs it twice as ours does (the spec's \`sha256=\` HMAC and the Standard Webhooks \`v1,\`), POSTs it through a keep-alive undici Agent, 16 in flight per process, and completes only after the receiver's 2xx (anything else throws and the queue retries it). ${drainSetup(run)} CPU per delivery in µs: worker processes / database (this database's PostgreSQL backends and the server's own processes; Redis for BullMQ) / receiver. RSS: a worker process's peak during the ${n(largest)} drain. Figures: median (min–max) over rounds; ours / it: ours' (1 process) deliveries/s over that system's, within each round.`,
    '',
    table(
      [
        'System',
        ...sizes.flatMap((size) => [`${n(size)} events: deliveries/s`, 'ours / it']),
        `enqueue ${n(largest)}, s`,
        'CPU µs per delivery: workers / database / receiver',
        'RSS MiB',
      ],
      rows,
    ),
    '',
    `¹ BullMQ's jobs live in Redis with the append-only file fsynced every second: a crash of Redis can lose the last second of enqueued or completed jobs, which a PostgreSQL commit (ours, graphile-worker, pg-boss) does not. It is not counted as a durable peer. Settings: graphile-worker local queue ${JSON.stringify(run.settings.graphileLocalQueue)}; pg-boss queue ${JSON.stringify(run.settings.pgBossQueue)}, work ${JSON.stringify(run.settings.pgBossWork)}, instance ${JSON.stringify(run.settings.pgBossInstance)}; BullMQ worker ${JSON.stringify(run.settings.bullmqWorker)}, jobs ${JSON.stringify(run.settings.bullmqJob)}; ours \`WEBHOOKS_TENANT_CONCURRENCY=16\`, ${Object.entries(
      run.settings.ours,
    )
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(', ')}.`,
    '',
    `**With a delivery-log row.** Ours keeps a delivery log the API lists; the peers' jobs do not. The same ${n(largest)} drain with each peer job also inserting one row into an indexed log table:`,
    '',
    table(
      [
        'System',
        'deliveries/s',
        'ours / it',
        'CPU µs per delivery: workers',
        'PostgreSQL CPU µs per delivery',
      ],
      withLog.map((s) => [
        s.label,
        f0(s.withLogRow.deliveriesPerS),
        f2(s.withLogRow.oursOver),
        s.withLogRow.cpuUsPerDelivery.median.toFixed(0),
        s.withLogRow.pgCpuUsPerDelivery.median.toFixed(0),
      ]),
    ),
    '',
    `**Latency and crashes.** Commit-to-receipt at ${run.latencyRate} events/s for ${run.latencySeconds} s to one idle worker process, after one event delivered and then a second of events at the same rate, unmeasured (its start-up: prepared statements, compiled code); then, once per round, ${n(run.crashEvents)} events committed in batches of 20 while one worker delivers them, the worker killed -9 a third of the way, the supervisor's step for a dead worker (graphile-worker: \`forceUnlockWorkers\`, as it keeps a dead worker's locks for 4 hours; the others: their ${Number(run.settings.ours.WEBHOOKS_LEASE_MS) / 1000} s lease or lock runs out) and a new worker started: duplicates are arrivals beyond an event's first, lost are events not arrived within the lease + 120 s.`,
    '',
    table(
      ['System', 'p50 ms', 'p99 ms', 'kill -9: duplicates', 'kill -9: lost'],
      quality.map((s) => [
        s.label,
        cell(s.p50Ms, 1),
        cell(s.p99Ms, 1),
        s.kill9 ? f0(s.kill9.duplicates) : '—',
        s.kill9 ? f0(s.kill9.lost) : '—',
      ]),
    ),
    '',
    `Targets against the fastest durable peer (${best?.label}, at ${n(vs.events)} events): ours ≥ 1.5 × its deliveries/s, ratio within each round — 1 process ${f2(vs)} ${verdict(vs.median >= 1.5)}, 2 processes ${f2(vs.twoDispatchers)} ${verdict(vs.twoDispatchers.median >= 1.5)}; ours' PostgreSQL CPU per delivery ≤ its: ${vs.pgCpu.ours.toFixed(0)} vs ${vs.pgCpu.peer.toFixed(0)} µs ${verdict(vs.pgCpu.ours <= vs.pgCpu.peer)}; commit-to-receipt at most the best durable peer's (${durableNames
      .map((k) => peers[k]?.label.split(',')[0])
      .filter((v, i, a) => a.indexOf(v) === i)
      .join(
        ', ',
      )}): p50 ${vs.latency.oursP50.toFixed(1)} vs ${vs.latency.bestP50.toFixed(1)} ms ${verdict(vs.latency.oursP50 <= vs.latency.bestP50)}, p99 ${vs.latency.oursP99.toFixed(1)} vs ${vs.latency.bestP99.toFixed(1)} ms ${verdict(vs.latency.oursP99 <= vs.latency.bestP99)}. Distance to the limit: ours / plain undici POSTs ${f2(vs.undici)}.`,
    ...purgeLine(w.purge),
    '',
    note,
  ];
}

/** The purge beside the drain against the same drain without it, and its target. */
function purgeLine(purge: PurgeBesideDrain | undefined): string[] {
  if (!purge) return [];
  return [
    '',
    `**Retention's purge beside the drain.** \`ours-purging\` is ours with ${n(purge.written)} expired rows (finished attempts and their events, 40 days old) written before the ${n(purge.events)}-event backlog and \`WEBHOOKS_PURGE_INTERVAL_S=1\`: its dispatcher purged ${f0(purge.purged)} of them, 500 a statement, between the backlog's commit and its last arrival. Within each round, purging / not: deliveries/s ${f2(purge.rate)}, PostgreSQL CPU per delivery ${f2(purge.pgCpu)}. Target: the purge moves deliveries/s by under 5 % (median ≥ 0.95) — ${verdict(purge.rate.median >= 0.95)}.`,
  ];
}
