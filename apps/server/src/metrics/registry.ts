import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * One process's (or one app's) metrics on a registry of its own: never prom-client's global
 * registry, so several apps in one test process count separately.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'operation' | 'method' | 'status_class'>;
  httpDuration: Histogram<'operation' | 'status_class'>;
  rateLimited: Counter<'reason'>;
  statementTimeouts: Counter;
  dbReads: Counter<'target' | 'reason'>;
}

/** Creates the metrics; `process: true` adds Node's process metrics (CPU, memory, event loop). */
export function createMetrics(options: { process?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.process) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by contract operation name, method and status class.',
      labelNames: ['operation', 'method', 'status_class'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to sending its response, by operation.',
      labelNames: ['operation', 'status_class'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    rateLimited: new Counter({
      name: 'rate_limited_total',
      help: 'Requests answered 429, by limit: key or address window, tenant database share, large responses.',
      labelNames: ['reason'],
      registers,
    }),
    statementTimeouts: new Counter({
      name: 'statement_timeouts_total',
      help: 'Statements PostgreSQL cancelled after DATABASE_STATEMENT_TIMEOUT_MS (SQLSTATE 57014).',
      registers,
    }),
    dbReads: new Counter({
      name: 'db_reads_total',
      help: 'Read operations with DATABASE_REPLICA_URL set, by where they ran (replica or primary) and why.',
      labelNames: ['target', 'reason'],
      registers,
    }),
  };
}
