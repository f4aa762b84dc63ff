// Tenant A's requests in the isolation attacks: plain requests, and requests at a pace that a pause
// cancels and holds (so that B can measure quiet windows between windows of attack).
import { performance } from 'node:perf_hooks';
import { api } from '../../lib/ours.js';
import type { Counts } from '../../results.js';

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The body of a page created by the scenario. */
export const pageBody = (i: number) => ({
  name: `page ${i}`,
  title: 'Title',
  pageContext: 'Context',
  brandId: 'brand',
  pageType: 'inbound',
});

/**
 * Whether A's paced requests may go: `pause(true)` cancels the requests under way (their signal
 * aborts) and holds new ones until `pause(false)`; the attack's stop opens it for good.
 */
export interface Gate {
  readonly paused: boolean;
  signal(): AbortSignal;
  open(): Promise<void> | undefined;
  pause(value: boolean): void;
}

/** A {@link Gate} that `stopSignal` opens for good. */
export function pauseGate(stopSignal: AbortSignal): Gate {
  let paused = false;
  let controller = new AbortController();
  const waiters: (() => void)[] = [];
  const release = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  stopSignal.addEventListener('abort', release);
  return {
    get paused() {
      return paused;
    },
    signal: () => controller.signal,
    open: () =>
      paused && !stopSignal.aborted ? new Promise<void>((resolve) => waiters.push(resolve)) : undefined,
    pause(value) {
      if (value === paused) return;
      paused = value;
      if (paused) {
        controller.abort();
        controller = new AbortController();
      } else release();
    },
  };
}

/** A's requests: `parallel` loops, at most `perSecond` requests a second in all (under its limit). */
export async function paced({
  signal,
  gate,
  parallel,
  perSecond,
  send,
}: {
  signal: AbortSignal;
  gate: Gate;
  parallel: number;
  perSecond: number;
  send: (cancel: AbortSignal) => Promise<number>;
}): Promise<Counts> {
  const statuses: Counts = {};
  const gap = (1000 * parallel) / perSecond;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (!signal.aborted) {
        await gate.open();
        if (signal.aborted) break;
        const t0 = performance.now();
        // A pause cancels what is under way ('cancelled'), as a client giving up would.
        const status = await send(gate.signal()).catch(() => (gate.paused ? 'cancelled' : 'error'));
        statuses[status] = (statuses[status] ?? 0) + 1;
        await sleep(Math.max(0, gap - (performance.now() - t0)));
      }
    }),
  );
  return statuses;
}

/** One request of A's; resolves with the status once the body is read. */
export async function request(
  url: string,
  apiKey: string,
  method: string,
  path: string,
  body?: string,
  signal?: AbortSignal,
): Promise<number> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
    signal,
  });
  await res.arrayBuffer();
  return res.status;
}

/** Creates page `i` and one audience of it for the tenant of `apiKey`; their ids. */
export async function newAudience(
  url: string,
  apiKey: string,
  i: number,
): Promise<{ pageId: string; audienceId: string }> {
  const { pageId } = await api<{ pageId: string }>(url, apiKey, 'POST', '/v0/pages', pageBody(i));
  const { audienceId } = await api<{ audienceId: string }>(
    url,
    apiKey,
    'POST',
    `/v0/pages/${pageId}/audiences`,
    {},
  );
  return { pageId, audienceId };
}
