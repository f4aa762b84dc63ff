// Load generation on loopback with autocannon: bounded in time, stops by itself.
import { performance } from 'node:perf_hooks';
import autocannon, { type RequestSpec } from 'autocannon';
import { Pool } from 'undici';
import { percentile } from './stats.js';

/** What a load measured: requests/s, latency percentiles (ms) and failures. */
export interface LoadRun {
  rps: number;
  total: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A load of {@link hammer}. */
export interface HammerOptions {
  url: string;
  seconds: number;
  connections?: number;
  headers?: Record<string, string>;
  requests?: RequestSpec[];
  method?: string;
  body?: string;
  overallRate?: number;
}

/**
 * Runs autocannon against `url` for `seconds`; returns requests/s, latency percentiles (ms) and
 * error counts. `requests` (autocannon's request list) may set bodies and per-request paths.
 */
export async function hammer({
  url,
  seconds,
  connections = 50,
  headers = {},
  requests,
  method,
  body,
  overallRate,
}: HammerOptions): Promise<LoadRun> {
  const optional = { method, body, requests, overallRate };
  const result = await autocannon({
    url,
    duration: seconds,
    connections,
    pipelining: 1,
    headers,
    timeout: 10,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A request of {@link latency}'s: a path with the load's headers, or a path with headers of its own. */
export type NextRequest = string | { path: string; headers: Record<string, string> };

/**
 * Closed-loop latency with sub-millisecond resolution (autocannon's percentiles are whole
 * milliseconds): `connections` undici clients each issue `path()` back to back for `seconds`.
 * `path()` may answer `{ path, headers }` instead of a path, for a request of its own headers
 * (another tenant's key); `total` is the number of requests answered.
 */
export async function latency({
  url,
  seconds,
  connections = 4,
  headers = {},
  path,
}: {
  url: string;
  seconds: number;
  connections?: number;
  headers?: Record<string, string>;
  path: () => NextRequest;
}): Promise<LoadRun> {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const samples: number[] = [];
  let failures = 0;
  const until = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const next = path();
      const request = typeof next === 'string' ? { path: next, headers } : next;
      const t0 = performance.now();
      const res = await pool.request({ method: 'GET', ...request, headersTimeout: 10_000 });
      await res.body.dump();
      samples.push(performance.now() - t0);
      if (res.statusCode !== 200) failures += 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  await pool.close();
  return {
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    rps: samples.length / seconds,
    total: samples.length,
    non2xx: failures,
    errors: 0,
  };
}
