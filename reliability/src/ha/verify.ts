import type pg from 'pg';
import { expect } from 'vitest';
import type { Receiver } from '../lib/receiver.js';
import { waitDelivered } from '../lib/webhook-load.js';
import type { Deployment } from './deployment.js';
import type { LoadResult } from './load.js';

/** What the scenarios did and what their loads got, summed for the suite's closing `ha:` line. */
export interface HaTotals {
  failovers: number;
  switchovers: number;
  writes: number;
  lost: number;
  duplicated: number;
  events: number;
  undelivered: number;
  other5xx: number;
  longestMs: number;
}

/** What {@link verify} reads: the primary, the load's tenants, the receiver and the API hosts' logs. */
export interface VerifyContext {
  admin: pg.Pool;
  tenants: string[];
  receiver: Receiver;
  deployment: Deployment;
  totals: HaTotals;
}

/** Checks what the load got and left behind; adds to the totals. */
export async function verify(context: VerifyContext, name: string, result: LoadResult): Promise<void> {
  const { admin, tenants, receiver, deployment, totals } = context;
  const names = [...result.pages.keys()];
  const rows = await admin.query<{ name: string; copies: number }>(
    `SELECT p.name, count(*)::int AS copies FROM pages p JOIN tenants t ON t.id = p.tenant_id
     WHERE t.name = ANY($1) AND p.name = ANY($2) GROUP BY p.name`,
    [tenants, names],
  );
  const stored = new Map(rows.rows.map((r) => [r.name, r.copies]));
  const lost = names.filter((n) => !stored.has(n));
  const duplicated = [...stored.values()].filter((copies) => copies > 1).length;
  const undelivered = await waitDelivered(receiver.versions, result.versions, 180_000);
  const other5xx = result.attempts.filter((a) => a.status >= 500 && a.status !== 503).length;
  totals.writes += names.length + result.versions.length;
  totals.lost += lost.length;
  totals.duplicated += duplicated;
  totals.events += result.versions.length;
  totals.undelivered += undelivered.length;
  totals.other5xx += other5xx;
  console.log(
    `[ha] ${name}: ${result.attempts.length} exchanges, ${names.length} pages and ${result.versions.length} versions acknowledged, ` +
      `${result.attempts.filter((a) => a.status === 503).length} answered 503, ${result.givenUp} calls given up, ` +
      `slowest exchange ${Math.round(Math.max(0, ...result.attempts.map((a) => a.ms)))} ms`,
  );
  const errorLines = (['api1', 'api2'] as const).flatMap((host) =>
    deployment
      .output(host)
      .split('\n')
      .filter((line) => line.includes('"level":50'))
      .slice(-3)
      .map((line) => `${host}: ${line.slice(0, 1500)}`),
  );
  expect(result.problems.slice(0, 10), errorLines.join('\n')).toEqual([]);
  expect(lost).toEqual([]);
  expect(duplicated).toBe(0);
  expect(undelivered).toEqual([]);
  expect(result.pages.size).toBeGreaterThan(0);
}
