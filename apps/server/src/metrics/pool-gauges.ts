import { Gauge } from 'prom-client';
import type { Database } from '../db/database.js';
import type { Metrics } from './registry.js';

/**
 * PostgreSQL pool gauges read at scrape time: connections checked out, idle, and checkouts
 * waiting for one. PGlite has no pool (one connection), so nothing is registered for it.
 */
export function registerPoolGauges(metrics: Metrics, database: Database): void {
  const pool = database.pool;
  if (!pool) return;
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      collect() {
        this.set(read());
      },
    });
  gauge(
    'db_pool_in_use',
    'Database connections checked out of the pool.',
    () => pool.totalCount - pool.idleCount,
  );
  gauge('db_pool_idle', 'Open database connections idle in the pool.', () => pool.idleCount);
  gauge('db_pool_waiting', 'Checkouts waiting for a database connection.', () => pool.waitingCount);
}
