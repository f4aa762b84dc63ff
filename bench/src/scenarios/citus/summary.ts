// Scenario 10's figures over the rounds: spreads of each load and side, ratios cluster / single
// within each round, and the workers' shares.
import { spread } from '../../lib/stats.js';
import type {
  CitusFailedSide,
  CitusKind,
  CitusMeasured,
  CitusNodeFigures,
  CitusRequestSide,
  CitusSideSummary,
  CitusTarget,
  CitusWebhookSide,
  IngestionCheck,
  Spread,
} from '../../results.js';
import type { IngestionRun } from '../ingestion.js';
import type { MeasuredSide } from './measure.js';
import { KINDS, TARGETS } from './plan.js';

/** One round: each load's sides, in the order measured. */
export interface CitusRound {
  list?: Record<CitusTarget, MeasuredSide>;
  read?: Record<CitusTarget, MeasuredSide>;
  ingestion?: Record<CitusTarget, MeasuredSide<IngestionRun>>;
  webhooks?: Partial<Record<CitusTarget, CitusWebhookSide | CitusFailedSide>>;
}

/** A side that was measured. */
type Side = CitusRequestSide | CitusWebhookSide;

/** The sum over `values` of `f`. */
const sum = <T>(values: T[], f: (value: T) => number): number => values.reduce((n, v) => n + f(v), 0);

/** `name`'s side of `kind` in `round`, when it was measured. */
function sideIn(round: CitusRound, kind: CitusKind, name: CitusTarget): Side | undefined {
  const side = round[kind]?.[name];
  return side && side.error === undefined ? side : undefined;
}

/** {@link sideIn}, for a round where it was measured. */
function measured(round: CitusRound, kind: CitusKind, name: CitusTarget): Side {
  const side = sideIn(round, kind, name);
  if (!side) throw new Error(`the ${name}'s ${kind} was not measured`);
  return side;
}

/** A figure of a request load's side (NaN for a webhook side, which has none). */
const requestFigure = (m: Side, key: 'p50' | 'p99' | 'failures' | 'total'): number =>
  'p50' in m ? m[key] : Number.NaN;

/** One of a node's figures by name. */
const figureOf = (f: CitusNodeFigures | undefined, k: string): number | undefined =>
  k === 'cpuUs'
    ? f?.cpuUs
    : k === 'transactions'
      ? f?.transactions
      : k === 'statements'
        ? f?.statements
        : undefined;

/** One side's spreads of a kind over the rounds `done`: rates, latency, each node's CPU and transactions. */
function sideSummary(done: CitusRound[], kind: CitusKind, name: CitusTarget): CitusSideSummary {
  const of = (f: (m: Side) => number) => spread(done.map((round) => f(measured(round, kind, name))));
  const first = done[0] && measured(done[0], kind, name);
  const side: CitusSideSummary = {
    rps: of((m) => m.rps),
    nodes: Object.fromEntries(
      Object.entries(first?.nodes ?? {}).map(([node, figures]) => [
        node,
        Object.fromEntries(
          Object.keys(figures).map((k) => [k, of((m) => figureOf(m.nodes[node], k) ?? Number.NaN)]),
        ),
      ]),
    ),
  };
  if (kind === 'webhooks')
    return { ...side, transactions: of((m) => ('transactions' in m ? m.transactions : Number.NaN)) };
  side.p50 = of((m) => requestFigure(m, 'p50'));
  side.p99 = of((m) => requestFigure(m, 'p99'));
  side.failures = sum(done, (round) => requestFigure(measured(round, kind, name), 'failures'));
  if (first && 'citus' in first && first.citus)
    side.connectionsOpenedPerRequest = of((m) =>
      'citus' in m && m.citus
        ? (m.citus.connectionsOpened ?? Number.NaN) / requestFigure(m, 'total')
        : Number.NaN,
    );
  return side;
}

/** What {@link summarise} is given besides the rounds. */
export interface SummaryInput {
  rounds: CitusRound[];
  checks: Record<CitusTarget, IngestionCheck[]>;
  where: Omit<CitusMeasured['placement'], 'totalRows'>;
  planned: { requests: Record<string, number>; webhooks: Record<string, number> };
  webhooksError: string | undefined;
  extra: Pick<
    CitusMeasured,
    | 'loadAtStart'
    | 'rounds'
    | 'workers'
    | 'tenants'
    | 'accountsPerTenant'
    | 'connections'
    | 'readSeconds'
    | 'ingestionSeconds'
    | 'events'
    | 'settings'
  >;
}

/** Spreads over the rounds of each load and side, ratios cluster / single within each round, shares. */
export function summarise({
  rounds,
  checks,
  where,
  planned,
  webhooksError,
  extra,
}: SummaryInput): CitusMeasured {
  const loads: CitusMeasured['loads'] = {};
  const ratios: Partial<Record<CitusKind, Spread>> = {};
  const coordinatorCpu: Partial<Record<CitusKind, Spread>> = {};
  const clusterCpu: Partial<Record<CitusKind, Spread>> = {};
  const workerTransactions: CitusMeasured['workerShare']['transactions'] = {};
  const cpuOf = (m: Side, node: string) => m.nodes[node]?.cpuUs ?? Number.NaN;
  for (const kind of KINDS) {
    const done = rounds.filter((round) => TARGETS.every((name) => sideIn(round, kind, name)));
    if (!done.length) continue;
    loads[kind] = { single: sideSummary(done, kind, 'single'), cluster: sideSummary(done, kind, 'cluster') };
    const ratio = (f: (c: Side, s: Side) => number) =>
      spread(done.map((round) => f(measured(round, kind, 'cluster'), measured(round, kind, 'single'))));
    ratios[kind] = ratio((c, s) => c.rps / s.rps);
    coordinatorCpu[kind] = ratio((c, s) => cpuOf(c, 'coordinator') / cpuOf(s, 'single'));
    clusterCpu[kind] = ratio(
      (c, s) => sum(Object.values(c.nodes), (node) => node.cpuUs) / cpuOf(s, 'single'),
    );
    if (kind === 'webhooks') continue;
    const firstCluster = done[0] && measured(done[0], kind, 'cluster');
    const workers = Object.keys(firstCluster?.nodes ?? {}).filter((node) => node !== 'coordinator');
    const transactionsOf = (round: CitusRound, node: string) =>
      measured(round, kind, 'cluster').nodes[node]?.transactions ?? Number.NaN;
    workerTransactions[kind] = Object.fromEntries(
      workers.map((node) => [
        node,
        spread(
          done.map((round) => transactionsOf(round, node) / sum(workers, (w) => transactionsOf(round, w))),
        ),
      ]),
    );
  }
  const multiShard = (kind: 'list' | 'read' | 'ingestion') =>
    sum(rounds, (round) => round[kind]?.cluster?.citus?.multiShard ?? 0);
  const totalRows = sum(Object.values(where.rows), (n) => n);
  const checkOf = (name: CitusTarget) => ({
    duplicates: sum(checks[name], (c) => c.duplicates),
    countersExact: checks[name].every((c) => c.countersExact && c.withinSent),
  });
  const ingestionChecks = { single: checkOf('single'), cluster: checkOf('cluster') };
  return {
    ...extra,
    listVsSingle: ratios.list,
    readVsSingle: ratios.read,
    ingestionVsSingle: ratios.ingestion,
    webhooksVsSingle: ratios.webhooks,
    webhooksError,
    coordinatorCpuVsSingle: coordinatorCpu,
    clusterCpuVsSingle: clusterCpu,
    loads,
    workerShare: {
      rows: Object.fromEntries(Object.entries(where.rows).map(([node, n]) => [node, n / totalRows])),
      transactions: workerTransactions,
    },
    placement: { ...where, totalRows },
    multiShard: {
      requestPaths: multiShard('list') + multiShard('read') + multiShard('ingestion'),
      list: multiShard('list'),
      read: multiShard('read'),
      ingestion: multiShard('ingestion'),
      webhooks: sum(rounds, (round) => round.webhooks?.cluster?.multiShard ?? 0),
      planned: planned.requests,
      plannedWebhooks: planned.webhooks,
    },
    ingestionChecks,
    runs: rounds.map((round) =>
      Object.fromEntries(
        Object.entries(round).map(([kind, sides]) => [
          kind,
          Object.fromEntries(
            Object.entries(sides as Partial<Record<CitusTarget, object>>).map(([name, m]) => [
              name,
              { ...m, run: undefined },
            ]),
          ),
        ]),
      ),
    ),
  };
}
