import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { listenMetrics, type MetricsListener } from './listener.js';
import { registerOutboxGauges } from './outbox-gauges.js';
import { registerPoolGauges } from './pool-gauges.js';
import { createMetrics, type Metrics } from './registry.js';

/** A process's metrics, and their listener when `METRICS_PORT` is set. */
export interface ProcessMetrics {
  metrics: Metrics;
  listener: MetricsListener | undefined;
}

/**
 * Metrics of a `serve` or `dispatch` process: process, pool and webhook outbox metrics on a registry of its own,
 * served on `HOST:METRICS_PORT`; with `METRICS_PORT` unset nothing listens.
 */
export async function startProcessMetrics(config: Config, database: Database): Promise<ProcessMetrics> {
  if (config.metricsPort === undefined) return { metrics: createMetrics(), listener: undefined };
  const metrics = createMetrics({ process: true });
  registerPoolGauges(metrics, database);
  registerOutboxGauges(metrics, database.db);
  const listener = await listenMetrics(metrics.registry, config.host, config.metricsPort);
  return { metrics, listener };
}
