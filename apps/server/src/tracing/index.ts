import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';

/**
 * A process's tracing, present only when it is on. Nothing of the OpenTelemetry SDK is loaded
 * while it is off: {@link startTracing} imports it on demand.
 */
export interface Tracing {
  /** A span per request of `app`, and child spans for the statements of `database` run under one. */
  register(app: FastifyInstance, database?: Database): void;
  /** Sends the spans still buffered and stops tracing. */
  shutdown(): Promise<void>;
}

/** Options of {@link startTracing}. */
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

/**
 * Tracing is on when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), unless `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingEnabled(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** Starts tracing when it is on (or an exporter is given); `undefined` otherwise, having loaded nothing. */
export async function startTracing(options: TracingOptions): Promise<Tracing | undefined> {
  if (!options.exporter && !tracingEnabled(options.env)) return undefined;
  const { createTracing } = await import('./sdk.js');
  return createTracing(options);
}
