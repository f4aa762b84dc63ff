import { type CustomerApiClient, createClient } from '@customer-api/client';

/** One HTTP exchange of the load, as the client's transport saw it. */
export interface Attempt {
  /** `performance.now()` when it was sent. */
  at: number;
  ms: number;
  /** HTTP status; 0 when no response came (a transport error). */
  status: number;
  operation: string;
}

/** What a run of {@link startLoad} observed. */
export interface LoadResult {
  attempts: Attempt[];
  /** Answers a user must never get: 5xx other than 503, a 503 that is not the error object with Retry-After, no answer. */
  problems: string[];
  /** Acknowledged page creations: page name → page id. */
  pages: Map<string, string>;
  /** Acknowledged version creations (each a `page.version.created` event). */
  versions: string[];
  /** Calls the SDK gave up on after its retries (the user saw an error; nothing was acknowledged). */
  givenUp: number;
}

/** A running load; `stop` ends it and resolves once every call in flight has ended. */
export interface Load {
  /** Every exchange so far (the array grows while the load runs). */
  readonly attempts: Attempt[];
  stop(): Promise<LoadResult>;
}

/** Per worker: its key and the versions path of its audience. */
export interface Worker {
  apiKey: string;
  pageId: string;
  audienceId: string;
}

/** The statuses the load accepts from the API during a fault. */
function problemOf(status: number, retryAfter: string | null, body: unknown): string | undefined {
  if (status < 500) return undefined;
  if (status !== 503) return `${status}: ${JSON.stringify(body).slice(0, 300)}`;
  const code = (body as { code?: unknown } | null)?.code;
  if (code !== 'SERVICE_UNAVAILABLE')
    return `503 without the error object: ${JSON.stringify(body).slice(0, 300)}`;
  if (retryAfter === null) return '503 without Retry-After';
  return undefined;
}

/**
 * A mixed load through the client SDK (which retries with idempotency keys): page creations,
 * version creations (webhook events) and reads, `workers.length` calls in flight. Every exchange
 * is recorded through the SDK's `fetch` option.
 */
export function startLoad(baseUrl: string, prefix: string, workers: Worker[]): Load {
  const result: LoadResult = { attempts: [], problems: [], pages: new Map(), versions: [], givenUp: 0 };
  let stopped = false;
  const recording = async (url: string, init: Parameters<typeof fetch>[1]) => {
    const at = performance.now();
    const operation = `${init?.method ?? 'GET'} ${new URL(url).pathname.replace(/[a-z]+_[0-9a-z]{20,}/g, ':id')}`;
    try {
      const res = await fetch(url, init);
      let body: unknown = null;
      if (res.status >= 500)
        body = await res
          .clone()
          .json()
          .catch(() => null);
      result.attempts.push({ at, ms: performance.now() - at, status: res.status, operation });
      const problem = problemOf(res.status, res.headers.get('retry-after'), body);
      if (problem) result.problems.push(`${operation}: ${problem}`);
      return res;
    } catch (err) {
      result.attempts.push({ at, ms: performance.now() - at, status: 0, operation });
      if (!(err instanceof Error && err.name === 'AbortError'))
        result.problems.push(`${operation}: no answer: ${String(err)}`);
      throw err;
    }
  };
  const worker = async (w: Worker, index: number) => {
    const client: CustomerApiClient = createClient({
      baseUrl,
      apiKey: w.apiKey,
      maxRetries: 40,
      timeoutMs: 20_000,
      backoff: { initialDelayMs: 100, maxDelayMs: 1000 },
      fetch: recording as never,
      logLevel: 'off',
    });
    const mine: string[] = [];
    try {
      for (let n = 0; !stopped; n += 1) {
        try {
          if (n % 3 === 0) {
            const name = `${prefix}-${index}-${n}`;
            const page = await client.createPage({
              body: { name, title: 'HA', pageContext: 'failover', brandId: 'b', pageType: 'inbound' },
            });
            result.pages.set(name, page.pageId);
            mine.push(page.pageId);
          } else if (n % 3 === 1) {
            const version = await client.createAudienceVersion({
              params: { page_id: w.pageId, audience_id: w.audienceId },
              body: {},
            });
            result.versions.push(version.versionId);
          } else if (mine.length > 0 && n % 2 === 0) {
            const pageId = mine[mine.length - 1] as string;
            await client.getPage({ params: { page_id: pageId } }).catch((err: unknown) => {
              // Its own acknowledged write, read at once through any API process (and, with
              // DATABASE_REPLICA_URL, possibly a standby): never missing.
              if ((err as { status?: unknown }).status === 404)
                result.problems.push(`read missed its own write ${pageId}`);
              throw err;
            });
          } else {
            await client.listPages({ query: { limit: 5 } });
          }
        } catch {
          result.givenUp += 1;
        }
      }
    } finally {
      await client.close();
    }
  };
  const running = Promise.all(workers.map(worker));
  return {
    attempts: result.attempts,
    stop: async () => {
      stopped = true;
      await running;
      return result;
    },
  };
}

/**
 * The longest time in `[from, to]` without a successful (2xx) answer, in ms: how long the service
 * was unavailable to this load.
 */
export function longestUnavailability(attempts: Attempt[], from: number, to: number): number {
  const successes = attempts
    .filter((a) => a.status >= 200 && a.status < 300)
    .map((a) => a.at + a.ms)
    .filter((t) => t >= from && t <= to)
    .sort((a, b) => a - b);
  let longest = 0;
  let previous = from;
  for (const t of [...successes, to]) {
    longest = Math.max(longest, t - previous);
    previous = t;
  }
  return longest;
}
