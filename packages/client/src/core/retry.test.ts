import type { ServerResponse } from 'node:http';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.js';
import { apiError, json, reset, startServer } from '../test/fake-server.js';
import { waits } from '../test/recorded-waits.js';
import {
  FAST,
  internal,
  ok,
  PAGE,
  PAGE_BODY,
  type Step,
  unavailable,
  useScriptedServer,
} from '../test/scripted-server.js';
import {
  ConflictError,
  ConnectionError,
  InternalError,
  RateLimitedError,
  ServiceUnavailableError,
} from './errors.js';
import { DEFAULT_BACKOFF, isRetryable, retryDelayMs } from './retry.js';

// The waits between attempts are recorded instead of slept; waits of 10 s or more are really
// slept, to be ended by an abort.
vi.mock('./retry.js', async (importOriginal) =>
  (await import('../test/recorded-waits.js')).recordingWaits(await importOriginal(), 10_000),
);
beforeEach(() => {
  waits.length = 0;
});

const { scripted, close } = useScriptedServer();

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
      await close();
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
    await close();
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
