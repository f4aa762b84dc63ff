import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { StatementObserver } from '../db/port.js';

/** Longest statement text kept on a span (statements carry `$n` parameters, never values). */
const MAX_TEXT = 2048;

/**
 * CLIENT spans for database statements, as an observer of the data-access port: only under an
 * active span (a request's), so the dispatcher's polls and other background statements make no
 * root spans of their own.
 */
export function statementSpans(tracer: Tracer): StatementObserver {
  return async (statement, execute) => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return execute();
    const { text } = statement;
    const attributes: Record<string, string> = {
      'db.system.name': 'postgresql',
      'db.query.text': text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text,
    };
    if (statement.name) attributes['db.query.summary'] = statement.name;
    const span = tracer.startSpan(operationOf(text), { kind: SpanKind.CLIENT, attributes }, parent);
    try {
      const result = await execute();
      span.end();
      return result;
    } catch (err) {
      fail(span, err);
      throw err;
    }
  };
}

/** The span name: the statement's first keyword (`SELECT`, `INSERT`, `WITH`…), as the conventions suggest. */
function operationOf(text: string): string {
  const keyword = text.trimStart().match(/^[A-Za-z]+/)?.[0];
  return keyword ? keyword.toUpperCase() : 'statement';
}

function fail(span: Span, err: unknown): void {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
