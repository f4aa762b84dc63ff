import { expect } from 'vitest';
import type { LoadResult } from '../ha/load.js';
import type { Receiver } from '../lib/receiver.js';
import { waitDelivered } from '../lib/webhook-load.js';
import type { CitusCluster } from './cluster.js';
import type { Phases } from './phases.js';
import type { ServerLogs } from './server-logs.js';

/** The SDK's timeout in the load: no exchange may take longer. */
const REQUEST_TIMEOUT_MS = 20_000;

/** What the scenario did and what its loads got, summed for the suite's closing `citus:` line. */
export interface CitusTotals {
  workers: number;
  moves: number;
  rebalanced: number;
  writes: number;
  lost: number;
  duplicated: number;
  events: number;
  undelivered: number;
  other5xx: number;
  served: number;
  tenants: number;
}

/** What {@link verify} reads besides the cluster: the tenants' ids, the receiver, the logs and steps. */
export interface VerifyContext {
  tenantIds: Map<string, string>;
  receiver: Receiver;
  totals: CitusTotals;
  logs: ServerLogs;
  phases: Phases;
}

/** Checks what the loads got and left behind on the coordinator and at the receiver; adds to the totals. */
export async function verify(c: CitusCluster, results: LoadResult[], context: VerifyContext): Promise<void> {
  const { tenantIds, receiver, totals, logs, phases } = context;
  const pages = new Map<string, string>();
  for (const r of results) for (const [name, id] of r.pages) pages.set(id, name);
  const versions = results.flatMap((r) => r.versions);
  const attempts = results.flatMap((r) => r.attempts);
  const problems = results.flatMap((r) => r.problems);
  const ids = [...tenantIds.values()];
  const stored = await c.query<{ id: string }>(
    'SELECT id FROM pages WHERE tenant_id = ANY($1) AND id = ANY($2)',
    [ids, [...pages.keys()]],
  );
  const storedVersions = await c.query<{ id: string }>(
    'SELECT id FROM audience_versions WHERE tenant_id = ANY($1) AND id = ANY($2)',
    [ids, versions],
  );
  const present = new Set([...stored, ...storedVersions].map((r) => r.id));
  const lost = [...pages.keys(), ...versions].filter((id) => !present.has(id));
  const duplicates = await c.query<{ tenant_id: string; name: string; copies: number }>(
    `SELECT tenant_id, name, count(*)::int AS copies FROM pages WHERE tenant_id = ANY($1)
     GROUP BY tenant_id, name HAVING count(*) > 1`,
    [ids],
  );
  const undelivered = await waitForDeliveries(receiver, versions);
  const other5xx = attempts.filter((a) => a.status >= 500 && a.status !== 503);
  const slowest = Math.max(0, ...attempts.map((a) => a.ms));
  totals.writes += pages.size + versions.length;
  totals.lost += lost.length;
  totals.duplicated += duplicates.length;
  totals.events += versions.length;
  totals.undelivered += undelivered.length;
  totals.other5xx += other5xx.length;
  console.log(
    `[citus] ${attempts.length} exchanges, ${pages.size} pages and ${versions.length} versions acknowledged, ` +
      `${attempts.filter((a) => a.status === 503).length} answered 503, ` +
      `${results.reduce((n, r) => n + r.givenUp, 0)} calls given up, slowest exchange ${Math.round(slowest)} ms`,
  );
  console.log(`[citus] by step: ${phases.byPhase(attempts)}`);
  if (logs.warnings.size > 0)
    console.log(
      `[citus] warnings the server logged:\n${[...logs.warnings].map(([m, n]) => `${n}x ${m}`).join('\n')}`,
    );
  if (logs.errors.size > 0) console.log(`[citus] errors the server logged:\n${logs.errorLines()}`);
  const errors = logs.errorLines();
  expect.soft(problems.slice(0, 10), errors).toEqual([]);
  expect.soft(lost.slice(0, 10)).toEqual([]);
  expect.soft(duplicates).toEqual([]);
  expect.soft(undelivered.length, `undelivered events; the dispatcher's errors:\n${errors}`).toBe(0);
  expect.soft(other5xx.length).toBe(0);
  expect.soft(slowest).toBeLessThan(REQUEST_TIMEOUT_MS);
  expect(pages.size).toBeGreaterThan(0);
}

/**
 * Waits until every version's event reached the receiver (at most five minutes, and gives up
 * sooner once two minutes passed without a single delivery); returns the ids still missing.
 */
async function waitForDeliveries(receiver: Receiver, versions: string[]): Promise<string[]> {
  const received = receiver.versions;
  const deadline = Date.now() + 300_000;
  let seen = received.size;
  let progressAt = Date.now();
  for (;;) {
    const missing = await waitDelivered(received, versions, 5_000);
    if (missing.length === 0 || Date.now() > deadline) return missing;
    if (received.size > seen) {
      seen = received.size;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > 120_000) {
      return missing;
    }
  }
}
