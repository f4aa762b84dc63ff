import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import {
  apiError,
  type FakeServer,
  json,
  type RecordedRequest,
  reset,
  startServer,
} from '../test/fake-server.js';
import {
  ConflictError,
  ConnectionError,
  InternalError,
  RateLimitedError,
  ServiceUnavailableError,
} from './errors.js';
import { DEFAULT_BACKOFF, isRetryable, retryDelayMs } from './retry.js';

// The waits between attempts are recorded instead of slept: a test reads what the client asked to
// wait, not the clock. Waits of 10 s or more are really slept, to be ended by an abort.
const waits = vi.hoisted(() => [] as number[]);
vi.mock('./retry.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./retry.js')>();
  return {
    ...actual,
    sleep: (ms: number, signal?: AbortSignal) => {
      waits.push(ms);
      return ms >= 10_000 ? actual.sleep(ms, signal) : actual.sleep(0, signal);
    },
  };
});
beforeEach(() => {
  waits.length = 0;
});

const PAGE = { pageId: 'page_1' };
const LOG = {
  accountLogId: 'accountlog_1',
  accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
  source: 'crm',
  type: 'webhook',
  createdAt: '2026-01-01T00:00:00.000Z',
};
const PAGE_BODY = { name: 'n', title: 't', pageContext: 'c', brandId: 'b', pageType: 'inbound' } as const;
const LOG_BODY = { source: 'crm', payload: {}, domain: 'example.com' };
const FAST = { initialDelayMs: 5, maxDelayMs: 20 };

type Step = (res: ServerResponse, req: RecordedRequest) => void;
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers request i with steps[i] (the last step repeats). */
async function scripted(steps: Step[], options: { maxRetries?: number; timeoutMs?: number } = {}) {
  server = await startServer((req, res, i) => steps[Math.min(i, steps.length - 1)]?.(res, req));
  const client = createClient({ baseUrl: server.url, apiKey: 'k', backoff: FAST, ...options });
  return { client, requests: server.requests };
}

const ok: Step = (res) => json(res, 200, PAGE);
const created: Step = (res) => json(res, 201, LOG);
const unavailable: Step = (res) => apiError(res, 'SERVICE_UNAVAILABLE');
const internal: Step = (res) => apiError(res, 'INTERNAL');
const hang: Step = () => {};

describe('retries', () => {
  it('retries 429 and waits the Retry-After header each time', async () => {
    const limited: Step = (res) => apiError(res, 'RATE_LIMITED', { headers: { 'retry-after': '0.1' } });
    const { client, requests } = await scripted([limited, limited, ok]);
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result.attempts).toBe(3);
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([100, 100]);
  });

  it('honours the rate-limit details.retryAfter when there is no header, even for a plain create', async () => {
    const details = { limit: 10, remaining: 0, resetTime: Date.now() + 150, retryAfter: 0.15 };
    const limited: Step = (res) => apiError(res, 'RATE_LIMITED', { details });
    const { client, requests } = await scripted([limited, (res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    expect(requests).toHaveLength(2);
    expect(waits).toEqual([150]);
  });

  it('retries 503 with its Retry-After for non-idempotent calls too', async () => {
    const down: Step = (res) => apiError(res, 'SERVICE_UNAVAILABLE', { headers: { 'retry-after': '0.08' } });
    const { client, requests } = await scripted([down, (res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    expect(requests).toHaveLength(2);
    expect(waits).toEqual([80]);
  });

  it('gives up after maxRetries (default 2) with the last error', async () => {
    const { client, requests } = await scripted([unavailable]);
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(requests).toHaveLength(3);
  });

  it('maxRetries 0 on the call disables retries', async () => {
    const { client, requests } = await scripted([unavailable, ok]);
    await expect(client.getPage({ params: { page_id: 'p' } }, { maxRetries: 0 })).rejects.toThrow(
      ServiceUnavailableError,
    );
    expect(requests).toHaveLength(1);
  });

  it.each([
    ['500', internal],
    ['502', (res: ServerResponse) => json(res, 502, 'Bad Gateway')],
    ['504', (res: ServerResponse) => json(res, 504, 'Gateway Timeout')],
  ] as const)(
    'retries %s for reads and for creates, with the same Idempotency-Key',
    async (_name, failure) => {
      const { client, requests } = await scripted([failure, ok]);
      await client.restorePage({ params: { page_id: 'p' } });
      expect(requests).toHaveLength(2);
      await server?.close();
      const second = await scripted([failure, (res) => json(res, 201, PAGE)]);
      await expect(second.client.createPage({ body: PAGE_BODY })).resolves.toEqual(PAGE);
      const keys = second.requests.map((r) => r.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
    },
  );

  it('retries a 409 carrying Retry-After (the key is still running), not a final 409', async () => {
    const running: Step = (res) => apiError(res, 'CONFLICT', { headers: { 'retry-after': '0.05' } });
    const { client, requests } = await scripted([running, (res) => json(res, 201, PAGE)]);
    await expect(client.createPage({ body: PAGE_BODY })).resolves.toEqual(PAGE);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.headers['idempotency-key']).toBe(requests[0]?.headers['idempotency-key']);
  });

  it.each([
    ['VALIDATION_ERROR', 400],
    ['UNAUTHORIZED', 401],
    ['FORBIDDEN', 403],
    ['NOT_FOUND', 404],
    ['CONFLICT', 409],
  ] as const)('never retries %s (%i)', async (code, status) => {
    const { client, requests } = await scripted([(res) => apiError(res, code), ok]);
    await expect(client.restorePage({ params: { page_id: 'p' } })).rejects.toMatchObject({ code, status });
    expect(requests).toHaveLength(1);
  });

  it('fails at once when the server asks for a wait longer than maxRetryAfterMs', async () => {
    const limited: Step = (res) => apiError(res, 'RATE_LIMITED', { headers: { 'retry-after': '120' } });
    const { client, requests } = await scripted([limited, ok]);
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfter).toBe(120);
    expect(requests).toHaveLength(1);
    // It did not start the 120 s wait it was asked for.
    expect(waits).toEqual([]);
  });

  it('retries a reset connection for reads and for creates, which repeat their key', async () => {
    const { client, requests } = await scripted([reset, ok]);
    await expect(client.getPage({ params: { page_id: 'p' } })).resolves.toEqual(PAGE);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.headers['idempotency-key']).toBeUndefined();
    await server?.close();
    const second = await scripted([reset, (res) => json(res, 201, PAGE)]);
    await expect(second.client.createPage({ body: PAGE_BODY })).resolves.toEqual(PAGE);
    expect(second.requests).toHaveLength(2);
    expect(second.requests[1]?.headers['idempotency-key']).toBe(
      second.requests[0]?.headers['idempotency-key'],
    );
  });

  it('reports a refused connection as ConnectionError with its code', async () => {
    const probe = await startServer((req, res) => ok(res, req));
    const url = probe.url;
    await probe.close();
    const client = createClient({ baseUrl: url, apiKey: 'k', backoff: FAST });
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).errno).toBe('ECONNREFUSED');
  });
});

describe('automatic idempotency key', () => {
  it('is added to createAccountLog and kept across its retries (503, 500, reset)', async () => {
    const { client, requests } = await scripted([unavailable, internal, reset, created], { maxRetries: 3 });
    await expect(client.createAccountLog({ body: LOG_BODY })).resolves.toEqual(LOG);
    expect(requests).toHaveLength(4);
    const keys = requests.map((r) => JSON.parse(r.body).idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
  });

  it('differs between two calls and never replaces the caller’s key', async () => {
    const { client, requests } = await scripted([created]);
    await client.createAccountLog({ body: LOG_BODY });
    await client.createAccountLog({ body: LOG_BODY });
    await client.createAccountLog({ body: { ...LOG_BODY, idempotencyKey: 'mine' } });
    const keys = requests.map((r) => JSON.parse(r.body).idempotencyKey);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('mine');
  });

  it('is not added to bodies without an idempotencyKey field; the header carries one', async () => {
    const { client, requests } = await scripted([(res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    expect(JSON.parse(requests[0]?.body ?? '')).toEqual(PAGE_BODY);
    expect(requests[0]?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('Idempotency-Key header', () => {
  it('is fresh per POST and PATCH call, and sent with maxRetries: 0', async () => {
    const { client, requests } = await scripted([(res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY });
    await client.createPage({ body: PAGE_BODY }, { maxRetries: 0 });
    await client.updateTopic({ params: { topic_id: 't' }, body: { title: 'x' } }).catch(() => undefined);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys.every((k) => typeof k === 'string' && k.length === 36)).toBe(true);
    expect(new Set(keys).size).toBe(3);
  });

  it('is the caller’s when given as a request option, on every retry', async () => {
    const { client, requests } = await scripted([unavailable, internal, (res) => json(res, 201, PAGE)]);
    await client.createPage({ body: PAGE_BODY }, { idempotencyKey: 'job-42' });
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(['job-42', 'job-42', 'job-42']);
  });

  it('is not sent on GET or DELETE', async () => {
    const { client, requests } = await scripted([ok]);
    await client.getPage({ params: { page_id: 'p' } }, { idempotencyKey: 'ignored' });
    await client.deletePage({ params: { page_id: 'p' } }).catch(() => undefined);
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });
});

describe('timeouts and abort', () => {
  it('times out a hanging attempt and retries it', async () => {
    // A timeout roomy enough for the answering attempt on a loaded machine.
    const { client, requests } = await scripted([hang, ok], { timeoutMs: 1000 });
    const result = await client.withResponse.getPage({ params: { page_id: 'p' } });
    expect(result.attempts).toBe(2);
    // The first attempt was never answered: only the timeout could have ended it.
    expect(requests).toHaveLength(2);
  });

  it('rejects with TimeoutError when every attempt hangs, including a stalled body', async () => {
    const stall: Step = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"pageId":');
    };
    const { client, requests } = await scripted([hang, stall], { timeoutMs: 300, maxRetries: 1 });
    const error = await client.getPage({ params: { page_id: 'p' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError', timeoutMs: 300 });
    expect(requests).toHaveLength(2);
  });

  it('aborts an in-flight call with the standard AbortError and does not retry', async () => {
    const controller = new AbortController();
    // Aborted once the server holds the request (an event, not a guess at how long sending takes).
    const { client, requests } = await scripted([() => controller.abort()]);
    const error = await client
      .getPage({ params: { page_id: 'p' } }, { signal: controller.signal })
      .catch((e) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(requests).toHaveLength(1);
  });

  it('aborts during the wait before a retry, and passes a custom reason through', async () => {
    const limited: Step = (res) => apiError(res, 'RATE_LIMITED', { headers: { 'retry-after': '30' } });
    server = await startServer((_req, res) => limited(res, _req));
    const controller = new AbortController();
    const reason = new Error('shutting down');
    // Aborted as soon as the 429 has reached the client, which then waits 30 s before retrying.
    const client = createClient({
      baseUrl: server.url,
      apiKey: 'k',
      backoff: FAST,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        setImmediate(() => controller.abort(reason));
        return response;
      },
    });
    await expect(client.getPage({ params: { page_id: 'p' } }, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(server.requests).toHaveLength(1);
    // The 30 s wait had begun (really slept, see the top): the abort ended it, not its end.
    expect(waits).toEqual([30_000]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { client, requests } = await scripted([ok]);
    await expect(
      client.getPage({ params: { page_id: 'p' } }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(requests).toHaveLength(0);
  });
});

describe('retry policy', () => {
  const headers = new Headers();
  const error = (status: number) => new InternalError({ status, headers, body: null });

  it('grows exponentially with jitter between half and the whole step, capped', () => {
    const backoff = { ...DEFAULT_BACKOFF, initialDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4].map((i) => retryDelayMs(error(500), i, backoff, () => 1))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect([0, 1, 2].map((i) => retryDelayMs(error(500), i, backoff, () => 0))).toEqual([50, 100, 200]);
  });

  it('retries unsafe operations only on 429, 503 and refused connections', () => {
    expect(isRetryable(error(500), false)).toBe(false);
    expect(isRetryable(error(500), true)).toBe(true);
    expect(isRetryable(new ConnectionError('reset'), false)).toBe(false);
    expect(isRetryable(new ConnectionError('refused', { cause: { code: 'ECONNREFUSED' } }), false)).toBe(
      true,
    );
    expect(isRetryable(new ServiceUnavailableError({ status: 503, headers, body: null }), false)).toBe(true);
    expect(isRetryable(new Error('bug'), true)).toBe(false);
    const conflict = (h: Record<string, string>) =>
      new ConflictError({ status: 409, headers: new Headers(h), body: { code: 'CONFLICT' } });
    expect(isRetryable(conflict({ 'retry-after': '1' }), false)).toBe(true);
    expect(isRetryable(conflict({}), true)).toBe(false);
  });
});
