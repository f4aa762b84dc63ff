import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';

/**
 * A process's tracing, present only when it is on. Nothing of the OpenTelemetry SDK is loaded
 * while it is off: `startTracing` (index.ts) imports it on demand.
 */
export interface Tracing {
  /** A span per request of `app`, and child spans for the statements of `database` run under one. */
  register(app: FastifyInstance, database?: Database): void;
  /** Sends the spans still buffered and stops tracing. */
  shutdown(): Promise<void>;
}

/** Options of `startTracing` (index.ts). */
export interface TracingOptions {
  /**
   * Where tracing's switch and endpoint are read; the exporter's other settings (headers, timeout,
   * batching, sampler) come from `process.env`, as the OpenTelemetry SDK reads them.
   */
  env: Record<string, string | undefined>;
  /** `service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names one. */
  serviceName: string;
  /** Tests: finished spans go here, one by one, instead of to an OTLP endpoint. */
  exporter?: SpanExporter;
}
