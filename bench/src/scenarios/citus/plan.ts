// Scenario 10's plan: the sides, the loads, the cluster's size, and the sizes of each mode.
import type { BenchContext } from '../../context.js';
import type { CitusKind, CitusTarget } from '../../results.js';

/** The two sides, in the order of an even round. */
export const TARGETS: CitusTarget[] = ['single', 'cluster'];
/** The loads, in the order they run in a round. */
export const KINDS: CitusKind[] = ['list', 'read', 'ingestion', 'webhooks'];
/** Workers of the Citus cluster. */
export const WORKERS = 2;
/** Connections of the read loads. */
export const CONNECTIONS = 8;
/** The list load's request. */
export const LIST = '/v0/accounts?limit=20';

/** Tenants of the read loads (a smoke run's: 2, each a CLI process per side). */
export const tenantCount = (ctx: BenchContext): number => (ctx.smoke ? 2 : 6);

/**
 * After the loads of a kind, the wait for every backend to report its transactions to
 * pg_stat_database: PostgreSQL 15 flushes an idle backend's pending statistics within 10 s. A smoke
 * run waits less (its counts may fall short: they are not compared with anything).
 */
export const settleMs = (ctx: BenchContext): number => (ctx.smoke ? 1500 : 11_000);

/** Accounts per tenant; the tenants' sizes differ by one, since scenario 2's loader names a tenant by its size. */
export const tenantSizes = (ctx: BenchContext): number[] => {
  const base = ctx.smoke ? 300 : ctx.quick ? 2_000 : 20_000;
  return Array.from({ length: tenantCount(ctx) }, (_, i) => base + i);
};
