import diagnostics from 'node:diagnostics_channel';
import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';

/** The part of undici's request object its diagnostics channels publish that a span needs. */
interface UndiciRequest {
  origin?: string | URL;
  method?: string;
}

/**
 * A CLIENT span per outgoing HTTP request made with undici (the webhook POSTs), from undici's
 * diagnostics channels: the webhook code is not touched. A POST made under an active span is
 * its child; the dispatcher's deliveries, which run outside any request, are roots. The span ends
 * when the response headers arrive (its status code recorded) or the request fails. No
 * `traceparent` is sent: receivers are third parties and the delivery headers stay the documented ones.
 * Returns the function that stops it.
 */
export function traceOutgoingRequests(tracer: Tracer): () => void {
  const spans = new WeakMap<object, Span>();
  const onCreate = (message: unknown) => {
    const request = (message as { request: UndiciRequest }).request;
    const method = request.method ?? 'GET';
    const attributes: Record<string, string | number> = { 'http.request.method': method };
    const origin = parseOrigin(request.origin);
    if (origin) {
      attributes['server.address'] = origin.hostname;
      attributes['server.port'] = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
      attributes['url.scheme'] = origin.protocol.replace(':', '');
    }
    spans.set(request, tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, context.active()));
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: object; error: unknown };
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const channels = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onHeaders],
    ['undici:request:error', onError],
  ] as const;
  for (const [name, listener] of channels) diagnostics.subscribe(name, listener);
  return () => {
    for (const [name, listener] of channels) diagnostics.unsubscribe(name, listener);
  };
}

function parseOrigin(origin: string | URL | undefined): URL | undefined {
  if (origin === undefined) return undefined;
  try {
    return new URL(String(origin));
  } catch {
    return undefined;
  }
}
