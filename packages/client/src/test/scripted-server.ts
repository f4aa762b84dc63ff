import type { ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import { createClient } from '../client.js';
import {
  apiError,
  type FakeServer,
  type Handler,
  json,
  type RecordedRequest,
  startServer,
} from './fake-server.js';

export const PAGE = { pageId: 'page_1' };
export const LOG = {
  accountLogId: 'accountlog_1',
  accountId: 'account_01jd4x3k5n8q2r6t9v0w1y2z3a',
  source: 'crm',
  type: 'webhook',
  createdAt: '2026-01-01T00:00:00.000Z',
};
export const PAGE_BODY = {
  name: 'n',
  title: 't',
  pageContext: 'c',
  brandId: 'b',
  pageType: 'inbound',
} as const;
export const LOG_BODY = { source: 'crm', payload: {}, domain: 'example.com' };
/** Backoff short enough for a test that really sleeps between attempts. */
export const FAST = { initialDelayMs: 5, maxDelayMs: 20 };

/** How the server answers one request. */
export type Step = (res: ServerResponse, req: RecordedRequest) => void;

export const ok: Step = (res) => json(res, 200, PAGE);
export const created: Step = (res) => json(res, 201, LOG);
export const unavailable: Step = (res) => apiError(res, 'SERVICE_UNAVAILABLE');
export const internal: Step = (res) => apiError(res, 'INTERNAL');
export const hang: Step = () => {};

/**
 * A fake server per test, closed after it: `scripted(steps)` answers request i with steps[i] (the
 * last step repeats) and gives a client of it; `start(handler)` starts one answering as `handler`
 * does; `close()` closes the current one early.
 */
export function useScriptedServer() {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const start = async (handler: Handler) => {
    server = await startServer(handler);
    return server;
  };
  const scripted = async (steps: Step[], options: { maxRetries?: number; timeoutMs?: number } = {}) => {
    const started = await start((req, res, i) => steps[Math.min(i, steps.length - 1)]?.(res, req));
    const client = createClient({ baseUrl: started.url, apiKey: 'k', backoff: FAST, ...options });
    return { client, requests: started.requests };
  };
  const close = async () => {
    await server?.close();
  };
  return { scripted, start, close };
}
