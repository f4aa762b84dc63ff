import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { SERVER_VERSION } from '../http/server-version.js';
import { registerRequestSpans } from './http-spans.js';
import { traceOutgoingRequests } from './outgoing-spans.js';
import { statementSpans } from './statement-spans.js';
import type { Tracing, TracingOptions } from './types.js';

/** The instrumentation scope every span of this server carries. */
export const TRACER_NAME = '@customer-api/server';

let contextManager: AsyncLocalStorageContextManager | undefined;

/**
 * Active spans follow async calls through one AsyncLocalStorage manager per process (the OTel
 * API keeps one global manager; a second tracing in the same process, e.g. in tests, shares it).
 */
function ensureContextManager(): void {
  if (contextManager) return;
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
}

/** The traces URL the settings name (the traces-specific one as is, else `/v1/traces` under the base). */
function tracesUrl(env: Record<string, string | undefined>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * The SDK half of {@link Tracing}, loaded only when tracing is on. The tracer provider is this
 * process's own (never registered globally): spans go to an OTLP/HTTP exporter configured by the
 * standard `OTEL_EXPORTER_OTLP_*` variables through a batch processor (`OTEL_BSP_*`), sampled as
 * `OTEL_TRACES_SAMPLER` says (default: parent-based, always on).
 */
export function createTracing(options: TracingOptions): Tracing {
  ensureContextManager();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': SERVER_VERSION }))
    .merge(detectResources({ detectors: [envDetector] }));
  const url = tracesUrl(options.env);
  const processor: SpanProcessor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter(url ? { url } : {}));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer(TRACER_NAME, SERVER_VERSION);
  const propagator = new W3CTraceContextPropagator();
  const stopOutgoing = traceOutgoingRequests(tracer);
  const statements = statementSpans(tracer);
  return {
    register: (app, database) => {
      registerRequestSpans(app, tracer, propagator);
      database?.observeStatements(statements);
    },
    shutdown: async () => {
      stopOutgoing();
      await provider.shutdown();
    },
  };
}
