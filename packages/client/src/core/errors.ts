import type { ApiError, ErrorCode, RateLimitDetails, ValidationErrorDetail } from '@customer-api/contract';
import { ERRORS } from '../generated/routes.js';
import { asApiError } from './error-object.js';

/** Everything the client knows about a failed HTTP response, passed to error constructors. */
export interface ErrorResponseInit {
  /** HTTP status of the response. */
  readonly status: number;
  /** Response headers. */
  readonly headers: Headers;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  /** The spec's error object when the body is one. */
  readonly error?: ApiError | undefined;
}

/** Codes of errors raised before any response arrived. */
export type NoResponseErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT';

/** What the errors without a response ({@link ConnectionError}, {@link TimeoutError}) are built from. */
export interface NoResponseInit {
  /** `CONNECTION_ERROR` or `TIMEOUT`. */
  readonly code: NoResponseErrorCode;
  /** Human-readable explanation. */
  readonly message: string;
}

/**
 * Base class of every error the client throws for a call: every error response of the API
 * (specification: Errors), a response outside the specification ({@link UnexpectedResponseError}),
 * and a call that got no response at all ({@link ConnectionError}, {@link TimeoutError}; their
 * `status` is 0). `code` is one of the specification's codes, `UNEXPECTED_RESPONSE`,
 * `CONNECTION_ERROR` or `TIMEOUT`; use `instanceof` on the subclasses (`NotFoundError`,
 * `ConflictError`, …) or switch on `code`. A call cancelled through its `signal` rejects with the
 * signal's reason instead.
 */
export class CustomerApiError extends Error {
  override name = 'CustomerApiError';
  /** HTTP status, e.g. 404; 0 when no response arrived (connection error, timeout). */
  readonly status: number;
  /** The specification's error code, e.g. `NOT_FOUND`; `UNEXPECTED_RESPONSE` outside the spec; `CONNECTION_ERROR` or `TIMEOUT` without a response. */
  readonly code: ErrorCode | 'UNEXPECTED_RESPONSE' | NoResponseErrorCode;
  /** Human-readable explanation from the server (or of the failure, without a response). */
  readonly detail: string;
  /** Structured data: validation issues (400) or rate-limit data (429). */
  readonly details: ApiError['details'];
  /** Identifier of the failed request (body `requestId` or the `x-request-id` header); quote it in support requests. */
  readonly requestId: string | undefined;
  /** Reason phrase of the status, e.g. `Not Found`; empty without a response. */
  readonly title: string;
  /** URI naming the error type: `{base_url}/errors/<code in lower case>`. */
  readonly type: string | undefined;
  /** Response headers (empty without a response). */
  readonly headers: Headers;
  /** The response body as received (parsed JSON, or text); `undefined` without a response. */
  readonly body: unknown;

  /**
   * Builds the error from a response (prefer {@link errorFromResponse}, which picks the subclass),
   * or, for the subclasses without a response, from their code and message.
   */
  constructor(init: ErrorResponseInit | NoResponseInit, options?: { cause?: unknown }) {
    if ('code' in init) {
      super(init.message, options);
      this.status = 0;
      this.code = init.code;
      this.detail = init.message;
      this.details = undefined;
      this.requestId = undefined;
      this.title = '';
      this.type = undefined;
      this.headers = new Headers();
      this.body = undefined;
      return;
    }
    const error = init.error;
    const requestId = error?.requestId || init.headers.get('x-request-id') || undefined;
    const detail = error?.detail ?? `Unexpected response with status ${init.status}`;
    super(
      `${error?.code ?? 'UNEXPECTED_RESPONSE'} (${init.status}): ${detail}${requestId ? ` [${requestId}]` : ''}`,
      options,
    );
    this.status = init.status;
    this.code = error?.code ?? 'UNEXPECTED_RESPONSE';
    this.detail = detail;
    this.details = error?.details;
    this.requestId = requestId;
    this.title = error?.title ?? '';
    this.type = error?.type;
    this.headers = init.headers;
    this.body = init.body;
  }
}

/** 400 `VALIDATION_ERROR`: the path, query string or JSON body is invalid. `details` lists the issues. */
export class ValidationError extends CustomerApiError {
  override name = 'ValidationError';
  declare readonly code: 'VALIDATION_ERROR';
  /** Issues per input area (`body`, `query`, `path`, `headers`). */
  get issues(): ValidationErrorDetail[] {
    return Array.isArray(this.details) ? this.details : [];
  }
}

/** 401 `UNAUTHORIZED`: the API key is missing or invalid. */
export class UnauthorizedError extends CustomerApiError {
  override name = 'UnauthorizedError';
  declare readonly code: 'UNAUTHORIZED';
}

/** 403 `FORBIDDEN`: the key may not access this tenant or operation (e.g. a read-only key writing). */
export class ForbiddenError extends CustomerApiError {
  override name = 'ForbiddenError';
  declare readonly code: 'FORBIDDEN';
}

/** 404 `NOT_FOUND`: missing, not under the stated parent, or not visible to your tenant. */
export class NotFoundError extends CustomerApiError {
  override name = 'NotFoundError';
  declare readonly code: 'NOT_FOUND';
}

/** 409 `CONFLICT`: the request conflicts with the current state. Never retried automatically. */
export class ConflictError extends CustomerApiError {
  override name = 'ConflictError';
  declare readonly code: 'CONFLICT';
}

/**
 * 412 `PRECONDITION_FAILED`: the resource changed since it was read, so the `ifMatch` tag sent is
 * not its current `ETag`; nothing was changed. Never retried automatically: read the resource
 * again (its new tag comes with it), decide whether the change still applies, and send it with
 * the new tag.
 */
export class PreconditionFailedError extends CustomerApiError {
  override name = 'PreconditionFailedError';
  declare readonly code: 'PRECONDITION_FAILED';
}

/** 429 `RATE_LIMITED`: the rate-limit window is exhausted; wait `retryAfter` seconds. */
export class RateLimitedError extends CustomerApiError {
  override name = 'RateLimitedError';
  declare readonly code: 'RATE_LIMITED';
  /** Seconds to wait before retrying, from the `Retry-After` header or `details.retryAfter`. */
  readonly retryAfter: number | undefined;
  /** Rate-limit data (`limit`, `remaining`, `resetTime`, `retryAfter`) when the server sent it. */
  readonly rateLimit: RateLimitDetails | undefined;

  /** Builds the error; `retryAfter` prefers the header, then the body's details. */
  constructor(init: ErrorResponseInit) {
    super(init);
    const details = this.details;
    this.rateLimit = details && !Array.isArray(details) ? details : undefined;
    this.retryAfter = parseRetryAfterSeconds(init.headers.get('retry-after')) ?? this.rateLimit?.retryAfter;
  }
}

/** 500 `INTERNAL`: an unexpected failure on the server. Retried for idempotent operations. */
export class InternalError extends CustomerApiError {
  override name = 'InternalError';
  declare readonly code: 'INTERNAL';
}

/** 503 `SERVICE_UNAVAILABLE`: temporarily unavailable; retried after a short delay. */
export class ServiceUnavailableError extends CustomerApiError {
  override name = 'ServiceUnavailableError';
  declare readonly code: 'SERVICE_UNAVAILABLE';
}

/**
 * A response outside the specification: an unlisted status (e.g. a proxy's 502), a body that is
 * not the error object, or a success body that is not JSON or fails validation.
 */
export class UnexpectedResponseError extends CustomerApiError {
  override name = 'UnexpectedResponseError';
  declare readonly code: 'UNEXPECTED_RESPONSE';
}

/**
 * The request never got a complete response: refused or reset connection, DNS failure, broken
 * body, or, in a browser, a response the browser kept from the page (CORS; see `corsBlocked`).
 * `code` is `CONNECTION_ERROR`, `status` 0; the underlying error is the `cause`.
 */
export class ConnectionError extends CustomerApiError {
  override name = 'ConnectionError';
  declare readonly code: NoResponseErrorCode;
  /** The low-level error code when known, e.g. `ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`. */
  readonly errno: string | undefined;
  /**
   * In a browser: the server answers, but the browser kept its response from this page because the
   * server does not admit the page's origin (its `CORS_ALLOWED_ORIGINS`). Never retried: only the
   * server's configuration can change the answer. Always false outside a browser.
   */
  readonly corsBlocked: boolean;

  /** Wraps the underlying network error as `cause`. */
  constructor(
    message: string,
    options?: { cause?: unknown; code?: NoResponseErrorCode; corsBlocked?: boolean },
  ) {
    super({ code: options?.code ?? 'CONNECTION_ERROR', message }, { cause: options?.cause });
    this.errno = findErrorCode(options?.cause);
    this.corsBlocked = options?.corsBlocked ?? false;
  }
}

/** One attempt took longer than `timeoutMs` (retried like a connection error); `code` is `TIMEOUT`. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  declare readonly code: 'TIMEOUT';
  /** The per-attempt timeout that was exceeded, in milliseconds. */
  readonly timeoutMs: number;

  /** @param timeoutMs the per-attempt timeout that was exceeded */
  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms`, { code: 'TIMEOUT' });
    this.timeoutMs = timeoutMs;
  }
}

const CLASS_BY_CODE: Record<ErrorCode, typeof CustomerApiError> = {
  VALIDATION_ERROR: ValidationError,
  UNAUTHORIZED: UnauthorizedError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  PRECONDITION_FAILED: PreconditionFailedError,
  RATE_LIMITED: RateLimitedError,
  INTERNAL: InternalError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERRORS).map(([code, { status }]) => [status, code as ErrorCode]),
);

/**
 * Turns a failed response into the matching {@link CustomerApiError} subclass. A body without the
 * error object (e.g. an empty 429 from a proxy) still maps by status when the status is one of
 * the specification's, so `instanceof RateLimitedError` holds either way.
 */
export function errorFromResponse(status: number, headers: Headers, body: unknown): CustomerApiError {
  const parsed = asApiError(body);
  if (parsed) return new CLASS_BY_CODE[parsed.code]({ status, headers, body, error: parsed });
  const code = CODE_BY_STATUS.get(status);
  if (!code) return new UnexpectedResponseError({ status, headers, body });
  const error: ApiError = {
    code,
    detail: typeof body === 'string' && body.length > 0 ? body.slice(0, 500) : ERRORS[code].title,
    requestId: '',
    status,
    title: ERRORS[code].title,
    type: '',
  };
  return new CLASS_BY_CODE[code]({ status, headers, body, error });
}

/** Parses `Retry-After` (delta seconds, fractional allowed, or an HTTP date) into seconds. */
export function parseRetryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

function findErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
