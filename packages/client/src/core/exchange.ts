import type { LevelledLogger } from './logging.js';
import { redactHeaders } from './logging.js';
import { activeTraceHeaders } from './trace.js';
import { type AttemptInit, type RawResponse, sendAttempt, type Transport } from './transport.js';

/** One attempt as `onRequest` sees it. Adding to or changing `headers` changes what is sent. */
export interface RequestEvent {
  /** The contract operation, e.g. `getPage` (`putAssetContent` / `putAssetPreview` for uploads). */
  readonly operation: string;
  readonly method: string;
  /** The absolute URL, query string included. */
  readonly url: string;
  /** The request headers, the API key included: redact before logging them yourself. */
  readonly headers: Record<string, string>;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
}

/** One HTTP response as `onResponse` sees it, error statuses included (not sent when no response came). */
export interface ResponseEvent {
  readonly operation: string;
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** Response headers: `x-request-id`, the `x-ratelimit-*` headers, `Deprecation`, … */
  readonly headers: Headers;
  readonly requestId: string | undefined;
  readonly attempt: number;
  /** Time from sending the request to the end of the body, in milliseconds. */
  readonly durationMs: number;
}

/** Hooks and logging around every attempt. */
export interface Observers {
  logger: LevelledLogger;
  onRequest: ((event: RequestEvent) => void | Promise<void>) | undefined;
  onResponse: ((event: ResponseEvent) => void | Promise<void>) | undefined;
}

/** Operations already warned about in this process (per module instance). */
const warnedDeprecations = new Set<string>();

/**
 * Sends one attempt of `operation` with the active trace context, the hooks and the logging
 * around it; warns once per process per operation when the response carries `Deprecation`.
 */
export async function exchange(
  transport: Transport,
  observers: Observers,
  operation: string,
  attempt: number,
  init: AttemptInit,
): Promise<RawResponse> {
  const headers = withTrace(init.headers);
  const { logger } = observers;
  await observers.onRequest?.({ operation, method: init.method, url: init.url, headers, attempt });
  if (logger.debugEnabled) {
    logger.debug(`customer-api: ${init.method} ${init.url} (${operation}, attempt ${attempt})`, {
      headers: redactHeaders(headers),
    });
  }
  const started = performance.now();
  let raw: RawResponse;
  try {
    raw = await sendAttempt(transport, { ...init, headers });
  } catch (error) {
    if (logger.debugEnabled)
      logger.debug(`customer-api: ${init.method} ${init.url} failed: ${(error as Error)?.message}`);
    throw error;
  }
  const durationMs = performance.now() - started;
  const requestId = raw.header('x-request-id') ?? undefined;
  if (logger.debugEnabled) {
    logger.debug(`customer-api: ${raw.status} ${init.method} ${init.url} (${Math.round(durationMs)} ms)`, {
      requestId,
      headers: redactHeaders(raw.headers),
    });
  }
  warnIfDeprecated(logger, operation, raw);
  await observers.onResponse?.({
    operation,
    method: init.method,
    url: init.url,
    status: raw.status,
    headers: raw.headers,
    requestId,
    attempt,
    durationMs,
  });
  return raw;
}

/** A copy of the headers for one attempt; the caller's own `traceparent` wins over the active span's. */
function withTrace(headers: Record<string, string>): Record<string, string> {
  const given = Object.keys(headers).some((key) => key.toLowerCase() === 'traceparent');
  return given ? { ...headers } : { ...headers, ...activeTraceHeaders() };
}

function warnIfDeprecated(logger: LevelledLogger, operation: string, raw: RawResponse): void {
  const deprecation = raw.header('deprecation');
  if (deprecation === null || warnedDeprecations.has(operation)) return;
  warnedDeprecations.add(operation);
  const sunset = raw.header('sunset');
  const link = raw.header('link');
  logger.warn(
    `customer-api: ${operation} is deprecated (Deprecation: ${deprecation}${sunset ? `; Sunset: ${sunset}` : ''}); move off it before it is removed`,
    { operation, deprecation, sunset: sunset ?? undefined, link: link ?? undefined },
  );
}
