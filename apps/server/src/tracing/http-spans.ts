import { ERROR_CATALOG } from '@customer-api/contract';
import {
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { toDomainError } from '../http/errors.js';
import { operationNamer } from '../metrics/operation-names.js';

interface RequestSpan {
  span: Span;
  context: Context;
}

/**
 * A SERVER span per request, named by the contract's operation (the metrics' `operation` label:
 * never the raw URL). An incoming `traceparent` continues its trace; the response carries the
 * request span's `traceparent`. The span is the active context for the route's hooks and handler,
 * so database statements and outgoing requests made for it become its children.
 */
export function registerRequestSpans(
  app: FastifyInstance,
  tracer: Tracer,
  propagator: TextMapPropagator,
): void {
  const nameOf = operationNamer();
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  app.addHook('onRequest', (request, reply, done) => {
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      nameOf(request.method, route),
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'customer_api.request_id': request.id,
          ...(route === undefined ? {} : { 'http.route': route }),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, context: active });
    const outgoing: Record<string, string> = {};
    propagator.inject(active, outgoing, defaultTextMapSetter);
    if (outgoing.traceparent) reply.header('traceparent', outgoing.traceparent);
    context.with(active, done);
  });
  // Reading the body leaves the context of the request's events: the span is entered again.
  app.addHook('preValidation', (request, _reply, done) => {
    const entry = spans.get(request);
    if (entry) context.with(entry.context, done);
    else done();
  });
  // A client's error is named by its code only: its message may quote the URL or the body.
  app.addHook('onError', (request, _reply, err, done) => {
    const span = spans.get(request)?.span;
    if (span) {
      const domain = toDomainError(err);
      span.setAttribute('error.type', domain.code);
      if (ERROR_CATALOG[domain.code].status >= 500) span.recordException(err);
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const entry = spans.get(request);
    if (entry) {
      spans.delete(request);
      entry.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
      entry.span.end();
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    const entry = spans.get(request);
    if (entry) {
      spans.delete(request);
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted the request' });
      entry.span.end();
    }
    done();
  });
}
