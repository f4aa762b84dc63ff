import type { Tracing, TracingOptions } from './types.js';

export type { Tracing, TracingOptions } from './types.js';

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
