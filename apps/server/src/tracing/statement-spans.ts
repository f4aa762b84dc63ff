import type { PGlite, Transaction } from '@electric-sql/pglite';
import { context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type pg from 'pg';
import type { StatementTracing } from './types.js';

/** Longest statement text kept on a span (statements carry `$n` parameters, never values). */
const MAX_TEXT = 2048;

type Run = (...args: unknown[]) => unknown;

/**
 * CLIENT spans for database statements, only under an active span (a request's): the
 * dispatcher's polls and other background statements make no root spans of their own.
 */
export function statementTracing(tracer: Tracer): StatementTracing {
  const instrumented = new WeakSet<object>();
  const start = (system: string, text: string | undefined): Span | undefined => {
    const parent = context.active();
    if (!trace.getSpan(parent)) return undefined;
    const attributes: Record<string, string> = { 'db.system.name': system };
    if (text) attributes['db.query.text'] = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
    return tracer.startSpan(operationOf(text), { kind: SpanKind.CLIENT, attributes }, parent);
  };
  const traced = (system: string, original: Run): Run => {
    return (...args) => {
      const span = start(system, textOf(args[0]));
      if (!span) return original(...args);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (err: unknown, result: unknown) => {
          finish(span, err);
          return callback(err, result);
        };
        return original(...args);
      }
      try {
        return Promise.resolve(original(...args)).then(
          (result) => {
            finish(span, undefined);
            return result;
          },
          (err: unknown) => {
            finish(span, err);
            throw err;
          },
        );
      } catch (err) {
        finish(span, err);
        throw err;
      }
    };
  };
  const patch = (target: object, system: string, methods: readonly string[]): void => {
    const record = target as Record<string, unknown>;
    for (const method of methods) {
      const original = record[method];
      if (typeof original === 'function') record[method] = traced(system, original.bind(target) as Run);
    }
  };
  return {
    postgresClient: (client: pg.PoolClient) => {
      if (instrumented.has(client)) return;
      instrumented.add(client);
      const query = client.query.bind(client) as Run;
      const tracedQuery = traced('postgresql', query);
      // Cursors and streams (objects with `submit`) pass through untraced.
      (client as unknown as { query: Run }).query = (...args) =>
        isSubmittable(args[0]) ? query(...args) : tracedQuery(...args);
    },
    pglite: (client: PGlite) => {
      if (instrumented.has(client)) return;
      instrumented.add(client);
      patch(client, 'postgresql', ['query', 'exec']);
      const transaction = client.transaction.bind(client);
      client.transaction = <T>(callback: (tx: Transaction) => Promise<T>) =>
        transaction((tx) => {
          patch(tx, 'postgresql', ['query', 'exec']);
          return callback(tx);
        });
    },
  };
}

function textOf(first: unknown): string | undefined {
  if (typeof first === 'string') return first;
  if (first && typeof first === 'object' && 'text' in first && typeof first.text === 'string')
    return first.text;
  return undefined;
}

function isSubmittable(first: unknown): boolean {
  return Boolean(
    first && typeof first === 'object' && 'submit' in first && typeof first.submit === 'function',
  );
}

/** The span name: the statement's first keyword (`SELECT`, `INSERT`, `WITH`…), as the conventions suggest. */
function operationOf(text: string | undefined): string {
  const keyword = text?.trimStart().match(/^[A-Za-z]+/)?.[0];
  return keyword ? keyword.toUpperCase() : 'statement';
}

function finish(span: Span, err: unknown): void {
  if (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
