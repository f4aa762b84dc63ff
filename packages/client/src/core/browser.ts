/** What the client can tell about a request a browser failed before any response. */
export interface BlockedRequest {
  /** The message of the `ConnectionError`, naming the likely cause. */
  message: string;
  /** The server answered a probe, so the browser kept the response from the page: a CORS refusal. */
  corsBlocked: boolean;
}

/** How long the reachability probe may take, in milliseconds. */
const PROBE_TIMEOUT_MS = 5_000;

interface BrowserGlobals {
  document?: unknown;
  location?: { origin?: unknown };
  WorkerGlobalScope?: unknown;
  fetch?: (url: string, init: Record<string, unknown>) => Promise<unknown>;
}

/** The page's origin when the client runs in a browser (a page or a web worker), else undefined. */
function pageOrigin(): string | undefined {
  const g = globalThis as BrowserGlobals;
  const inBrowser = typeof g.document === 'object' || typeof g.WorkerGlobalScope === 'function';
  const origin = g.location?.origin;
  return inBrowser && typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/**
 * In a browser, a cross-origin request that fails before any response rejects with a bare
 * `TypeError` ("Failed to fetch"), whatever the cause. This sends one `no-cors` `HEAD` to the
 * server's `/healthz`, a request that needs no CORS admission: an answer means the server is up
 * and the browser refused the page's origin. Undefined outside a browser, for another error, and
 * for a same-origin request (CORS cannot be the cause).
 */
export async function explainBlockedRequest(
  url: string,
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<BlockedRequest | undefined> {
  const page = pageOrigin();
  const target = new URL(url).origin;
  if (page === undefined || page === target || !(error instanceof TypeError)) return undefined;
  const failure = error.message;
  if (await answers(`${target}/healthz`, signal)) {
    return {
      corsBlocked: true,
      message:
        `Request to ${target} was blocked by CORS (${failure}): the server answers, but not to pages of ` +
        `${page}. The server's CORS_ALLOWED_ORIGINS must list ${page}.`,
    };
  }
  return {
    corsBlocked: false,
    message:
      `Request to ${target} failed before any response (${failure}): blocked by CORS (the server's ` +
      `CORS_ALLOWED_ORIGINS must list ${page}) or by the network (server down, offline, DNS, mixed content).`,
  };
}

/** Whether the server gives any answer to a request that needs no CORS admission. */
async function answers(url: string, signal: AbortSignal | undefined): Promise<boolean> {
  const fetch = (globalThis as BrowserGlobals).fetch;
  if (typeof fetch !== 'function' || signal?.aborted) return false;
  const controller = new AbortController();
  const stop = () => controller.abort();
  const timer = setTimeout(stop, PROBE_TIMEOUT_MS);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await fetch.call(globalThis, url, {
      method: 'HEAD',
      mode: 'no-cors',
      cache: 'no-store',
      credentials: 'omit',
      signal: controller.signal,
    });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}
