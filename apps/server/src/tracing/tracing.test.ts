import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import Fastify from 'fastify';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/test-app.js';
import { startReceiver } from '../test/webhook-receiver.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { startTracing, tracingEnabled } from './index.js';

const exporter = new InMemorySpanExporter();
const tracing = await startTracing({ env: {}, serviceName: 'customer-api-test', exporter });
const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV, ...(tracing ? { tracing } : {}) });
const h = webhookHelpers(t, time.clock);

afterAll(async () => {
  await h.stopAll();
  await tracing?.shutdown();
});

beforeEach(() => {
  exporter.reset();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

function spans(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}

function childrenOf(span: ReadableSpan): ReadableSpan[] {
  return spans().filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId);
}

function serverSpan(name: string): ReadableSpan {
  const found = spans().filter((s) => s.kind === SpanKind.SERVER && s.name === name);
  expect(found, `one ${name} span among ${spans().map((s) => s.name)}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

describe('request traces', () => {
  it('continues an incoming traceparent: a span named by operation, statement children, traceparent back', async () => {
    const page = await t.seed.page(t.tenant);
    exporter.reset();
    const res = await t.app.inject({
      url: `/v0/pages/${page.pageId}?limit=5`,
      headers: { ...t.auth(), traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    expect(res.statusCode).toBe(200);
    const span = serverSpan('getPage');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v0/pages/:page_id',
      'http.response.status_code': 200,
      'customer_api.request_id': res.headers['x-request-id'],
    });
    expect(JSON.stringify(span.attributes)).not.toContain(page.pageId);
    expect(res.headers.traceparent).toBe(`00-${TRACE_ID}-${span.spanContext().spanId}-01`);
    const statements = childrenOf(span);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(SpanKind.CLIENT);
      expect(statement.spanContext().traceId).toBe(TRACE_ID);
      expect(statement.attributes['db.system.name']).toBe('postgresql');
      expect(statement.name).toMatch(/^[A-Z]+$/);
    }
    expect(statements.map((s) => s.name)).toContain('SELECT');
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes('pages'))).toBe(true);
    // Parameters are sent apart from the text: no value of the request is on a statement span.
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes(page.pageId))).toBe(false);
  });

  it('keeps the request span active past body parsing: the statements of a write are its children', async () => {
    const page = await t.seed.page(t.tenant);
    const span = serverSpan('createPage');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes['http.response.status_code']).toBe(201);
    const statements = childrenOf(span);
    expect(statements.map((s) => s.name)).toContain('INSERT');
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes(page.name))).toBe(false);
  });

  it('names unrouted requests "unknown" and leaves the status of a 4xx span unset', async () => {
    const res = await t.app.inject({ url: '/v0/fz9sd8f/secret-looking-segment?x=1', headers: t.auth() });
    expect(res.statusCode).toBe(404);
    const span = serverSpan('unknown');
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['error.type']).toBe('NOT_FOUND');
    const visible = JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events });
    expect(visible).not.toContain('secret-looking-segment');
  });

  it('starts a new trace for a malformed or hostile traceparent and never echoes it', async () => {
    for (const traceparent of [
      `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
      `ff-${TRACE_ID}-${PARENT_ID}-01`,
      'x'.repeat(8000),
    ]) {
      exporter.reset();
      const res = await t.app.inject({ url: '/healthz', headers: { traceparent } });
      expect(res.statusCode).toBe(200);
      const span = serverSpan('healthz');
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
      expect(res.headers.traceparent).toBe(
        `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`,
      );
    }
  });

  it('makes no root spans of statements run outside a request (migrations, dispatcher polls)', async () => {
    await t.database.ping();
    await h.dispatcher().runOnce();
    expect(spans()).toEqual([]);
  });
});

describe('webhook POST spans', () => {
  it('spans each delivery POST as a CLIENT span with its status, without sending traceparent', async () => {
    const receiver = await startReceiver();
    try {
      await h.subscribe(receiver.url);
      await h.version();
      exporter.reset();
      await h.dispatcher().runOnce();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.headers.traceparent).toBeUndefined();
      const posts = spans().filter((s) => s.kind === SpanKind.CLIENT && s.name === 'POST');
      expect(posts).toHaveLength(1);
      expect(posts[0]?.attributes).toMatchObject({
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'http.response.status_code': 200,
      });
      // The dispatcher runs outside any request: a delivery is the root of its own trace.
      expect(posts[0]?.parentSpanContext).toBeUndefined();
    } finally {
      await h.stopAll();
      await receiver.close();
    }
  });

  it('marks a refused delivery as an error', async () => {
    const receiver = await startReceiver();
    try {
      receiver.fallback = { status: 500 };
      await h.subscribe(receiver.url);
      await h.version();
      exporter.reset();
      await h.dispatcher().runOnce();
      const post = spans().find((s) => s.name === 'POST');
      expect(post?.attributes['http.response.status_code']).toBe(500);
      expect(post?.status.code).toBe(SpanStatusCode.ERROR);
    } finally {
      await h.stopAll();
      await receiver.close();
    }
  });
});

describe('OTLP export', () => {
  it('sends the spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, flushed on shutdown', async () => {
    const exports: Array<{ path: string; body: string }> = [];
    const collector = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      exports.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const { port } = collector.address() as AddressInfo;
    const exporting = await startTracing({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` },
      serviceName: 'customer-api-export-test',
    });
    if (!exporting) throw new Error('tracing should be on with an endpoint');
    const app = Fastify();
    exporting.register(app);
    app.get('/healthz', async () => ({ status: 'ok' }));
    try {
      const res = await app.inject({
        url: '/healthz',
        headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      });
      expect(res.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      await exporting.shutdown();
    } finally {
      await app.close();
      collector.close();
    }
    expect(exports.map((e) => e.path)).toEqual(['/v1/traces']);
    const body = JSON.parse(exports[0]?.body ?? '{}');
    const resource = JSON.stringify(body.resourceSpans[0].resource.attributes);
    expect(resource).toContain('customer-api-export-test');
    const [span] = body.resourceSpans[0].scopeSpans[0].spans;
    expect(span).toMatchObject({ name: 'healthz', traceId: TRACE_ID, parentSpanId: PARENT_ID });
  });
});

describe('tracing settings', () => {
  it('is on only with an OTLP endpoint, and off when disabled', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingEnabled({ ...on, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('starts nothing when off', async () => {
    expect(await startTracing({ env: {}, serviceName: 'x' })).toBeUndefined();
  });
});
