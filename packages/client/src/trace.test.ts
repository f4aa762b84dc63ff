import { context, type TraceState, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from './client.js';
import { type FakeServer, json, startServer } from './test/fake-server.js';

// A real OpenTelemetry setup, as an application would register it; the client imports none of it.
let server: FakeServer;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  server = await startServer((_req, res) => json(res, 200, { pageId: 'page_1' }));
});
afterAll(async () => {
  await server?.close();
  await provider.shutdown();
  context.disable();
  trace.disable();
});

describe('traceparent', () => {
  it('sends the active span as a W3C traceparent, and nothing outside a span', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'k' });
    const tracer = trace.getTracer('checkout-service');
    const span = await tracer.startActiveSpan('sync pages', async (active) => {
      await client.getPage({ params: { page_id: 'page_1' } });
      active.end();
      return active;
    });
    await client.getPage({ params: { page_id: 'page_1' } });
    const { traceId, spanId } = span.spanContext();
    expect(server.requests.map((r) => r.headers.traceparent)).toEqual([
      `00-${traceId}-${spanId}-01`,
      undefined,
    ]);
    expect(exporter.getFinishedSpans().map((s) => s.spanContext().traceId)).toEqual([traceId]);
    await client.close();
  });

  it('keeps a traceparent the caller set, and marks an unsampled span 00', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'k' });
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const unsampled = trace.wrapSpanContext({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 0,
    });
    const before = server.requests.length;
    await context.with(trace.setSpan(context.active(), unsampled), async () => {
      await client.getPage({ params: { page_id: 'page_1' } }, { headers: { TraceParent: own } });
      await client.getPage({ params: { page_id: 'page_1' } });
    });
    expect(server.requests.slice(before).map((r) => r.headers.traceparent)).toEqual([
      own,
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
    ]);
    await client.close();
  });

  it('sends nothing for an invalid span context (e.g. one smuggling header text), lower-cases upper-case ids, drops a tracestate no header may carry', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'k' });
    const before = server.requests.length;
    const badState = { serialize: () => 'vendor=a\r\nx-injected: 1' } as unknown as TraceState;
    const goodState = { serialize: () => 'vendor=abc' } as unknown as TraceState;
    for (const traceState of [badState, goodState]) {
      const span = trace.wrapSpanContext({
        traceId: 'b'.repeat(32),
        spanId: 'c'.repeat(16),
        traceFlags: 1,
        traceState,
      });
      await context.with(trace.setSpan(context.active(), span), () =>
        client.getPage({ params: { page_id: 'p' } }),
      );
    }
    expect(server.requests.slice(before).map((r) => [r.headers.traceparent, r.headers.tracestate])).toEqual([
      [`00-${'b'.repeat(32)}-${'c'.repeat(16)}-01`, undefined],
      [`00-${'b'.repeat(32)}-${'c'.repeat(16)}-01`, 'vendor=abc'],
    ]);
    const after = server.requests.length;
    for (const traceId of ['0'.repeat(32), `${'a'.repeat(31)}\r\nx-api-key: stolen`, 'A'.repeat(32)]) {
      const span = trace.wrapSpanContext({ traceId, spanId: '00f067aa0ba902b7', traceFlags: 1 });
      await context.with(trace.setSpan(context.active(), span), () =>
        client.getPage({ params: { page_id: 'p' } }),
      );
    }
    expect(server.requests.slice(after).map((r) => r.headers.traceparent)).toEqual([
      undefined,
      undefined,
      `00-${'a'.repeat(32)}-00f067aa0ba902b7-01`,
    ]);
    await client.close();
  });
});
