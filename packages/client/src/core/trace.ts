/**
 * W3C Trace Context from OpenTelemetry, without importing it: `@opentelemetry/api` keeps its
 * registered context manager in a global keyed by its major version (that is how two copies of
 * the API share one context), and a span sits in a context under a well-known symbol. Reading
 * both keeps `@opentelemetry/api` an optional peer that no bundle has to resolve.
 */
const OTEL_API_KEY = Symbol.for('opentelemetry.js.api.1');
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

interface SpanContextLike {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: { serialize(): string };
}

interface OtelGlobal {
  context?: { active(): { getValue(key: symbol): unknown } };
}

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;

/**
 * The `traceparent` (and `tracestate` when there is one) of the active OpenTelemetry span, or
 * nothing when no OpenTelemetry context manager is registered or no valid span is active.
 */
export function activeTraceHeaders(): Record<string, string> {
  const api = (globalThis as { [OTEL_API_KEY]?: OtelGlobal })[OTEL_API_KEY];
  let span: unknown;
  try {
    span = api?.context?.active().getValue(SPAN_KEY);
  } catch {
    return {};
  }
  const spanContext = (span as { spanContext?: () => SpanContextLike } | undefined)?.spanContext?.();
  if (!spanContext || typeof spanContext.traceId !== 'string' || typeof spanContext.spanId !== 'string')
    return {};
  // OpenTelemetry accepts upper-case ids; W3C Trace Context writes them in lower case.
  const traceId = spanContext.traceId.toLowerCase();
  const spanId = spanContext.spanId.toLowerCase();
  if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId)) return {};
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${flags}` };
  const state = spanContext.traceState?.serialize();
  // A value no header may carry would fail the request: such a tracestate is left out.
  if (typeof state === 'string' && /^[\x20-\x7e]{1,512}$/.test(state)) headers.tracestate = state;
  return headers;
}
