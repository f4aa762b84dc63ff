// Tenant B's side of the isolation scenario: its paced requests and their latency, quiet and under
// attack, and the server's RSS while it measures.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { rssMiB } from '../../lib/proc.js';
import { percentile } from '../../lib/stats.js';
import type { IsolationEndpoint, IsolationPhase } from '../../results.js';
import type { RunningAttack } from './in-worker.js';
import { sleep } from './requests.js';

/** One endpoint's samples over a window. */
interface EndpointWindow {
  samples: number[];
  non2xx: number;
}

/** Both endpoints' samples over a window. */
export type BWindow = Record<keyof IsolationPhase, EndpointWindow>;

/**
 * B's view: two sequential clients, one per endpoint, one request every 50 ms each, spread over
 * B's keys (600 a minute per key, within the default limit of 1,000), for `seconds`.
 */
export async function measureB(
  url: string,
  apiKeys: string[],
  accountId: string,
  seconds: number,
): Promise<IsolationPhase> {
  return summarize([await sampleB(url, apiKeys, accountId, seconds * 1000)]);
}

/** {@link measureB}'s requests for `ms`: each endpoint's latencies and its count of non-2xx. */
export async function sampleB(
  url: string,
  apiKeys: string[],
  accountId: string,
  ms: number,
): Promise<BWindow> {
  const client = new Pool(url, { connections: 2 });
  const until = performance.now() + ms;
  let sent = 0;
  const run = async (path: string): Promise<EndpointWindow> => {
    const samples: number[] = [];
    let non2xx = 0;
    while (performance.now() < until) {
      const headers = { 'x-api-key': apiKeys[sent++ % apiKeys.length] ?? '' };
      const t0 = performance.now();
      try {
        const res = await client.request({ method: 'GET', path, headers, headersTimeout: 30_000 });
        await res.body.dump();
        if (res.statusCode >= 300) non2xx += 1;
      } catch {
        non2xx += 1;
      }
      const took = performance.now() - t0;
      samples.push(took);
      await sleep(Math.max(0, 50 - took));
    }
    return { samples, non2xx };
  };
  const [pages, account] = await Promise.all([run('/v0/pages?limit=20'), run(`/v0/accounts/${accountId}`)]);
  await client.close();
  return { pages, account };
}

/** p50, p99, count and non-2xx of each endpoint over several sampling windows. */
export function summarize(windows: BWindow[]): IsolationPhase {
  const endpoint = (key: keyof BWindow): IsolationEndpoint => {
    const samples = windows.flatMap((w) => w[key].samples);
    const non2xx = windows.reduce((n, w) => n + w[key].non2xx, 0);
    return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), n: samples.length, non2xx };
  };
  return { pages: endpoint('pages'), account: endpoint('account') };
}

/**
 * B's figures with A paused and with A attacking, in windows that alternate (paused first), four
 * pairs of `seconds` / 4 each (one pair when `seconds` is under 8); B samples each window after its
 * first fifth (at most a second), once the requests A had under way are cancelled or A is going
 * again. Drift of a shared machine's load then falls on both alike.
 */
export async function measureInterleaved(
  attacker: RunningAttack,
  sample: (ms: number) => Promise<BWindow>,
  seconds: number,
): Promise<{ quiet: IsolationPhase; attack: IsolationPhase }> {
  const pairs = seconds >= 8 ? 4 : 1;
  const windowMs = (seconds * 1000) / pairs;
  const settleMs = Math.min(1000, windowMs / 5);
  const quiet: BWindow[] = [];
  const attack: BWindow[] = [];
  const windows: [boolean, BWindow[]][] = [
    [true, quiet],
    [false, attack],
  ];
  for (let i = 0; i < pairs; i += 1) {
    for (const [paused, into] of windows) {
      attacker.pause(paused);
      await sleep(settleMs);
      into.push(await sample(windowMs - settleMs));
    }
  }
  return { quiet: summarize(quiet), attack: summarize(attack) };
}

/** Samples the server's RSS every 250 ms; `takeMax` returns and resets the max since last call. */
export function sampleRss(pid: number) {
  const state = { max: 0, window: 0 };
  const timer = setInterval(() => {
    try {
      const mib = rssMiB(pid);
      state.max = Math.max(state.max, mib);
      state.window = Math.max(state.window, mib);
    } catch {}
  }, 250);
  return {
    get max() {
      return state.max;
    },
    takeMax: () => {
      const value = state.window;
      state.window = 0;
      return value;
    },
    stop: () => clearInterval(timer),
  };
}
