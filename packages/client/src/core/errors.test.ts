import { ERROR_CATALOG, type ErrorCode } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  ConnectionError,
  CustomerApiError,
  errorFromResponse,
  ForbiddenError,
  InternalError,
  NotFoundError,
  PreconditionFailedError,
  parseRetryAfterSeconds,
  RateLimitedError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  ValidationError,
} from './errors.js';

const CLASSES: Record<ErrorCode, typeof CustomerApiError> = {
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

const body = (code: ErrorCode, details?: unknown) => ({
  code,
  detail: 'something went wrong',
  requestId: 'req_1',
  status: ERROR_CATALOG[code].status,
  title: ERROR_CATALOG[code].title,
  type: `http://x/errors/${code.toLowerCase()}`,
  ...(details === undefined ? {} : { details }),
});

describe('errorFromResponse', () => {
  it.each(Object.keys(CLASSES) as ErrorCode[])('maps %s to its class with every field', (code) => {
    const { status } = ERROR_CATALOG[code];
    const error = errorFromResponse(status, new Headers({ 'x-request-id': 'req_header' }), body(code));
    expect(error).toBeInstanceOf(CLASSES[code]);
    expect(error).toBeInstanceOf(CustomerApiError);
    expect(error).toMatchObject({ status, code, detail: 'something went wrong', requestId: 'req_1' });
    expect(error.name).toBe(CLASSES[code].name);
    expect(error.message).toContain(code);
    expect(error.message).toContain('req_1');
  });

  it('keeps validation details and exposes them as issues', () => {
    const details = [
      { field: 'body', issues: [{ code: 'validation_failed', message: 'Required', path: ['source'] }] },
    ];
    const error = errorFromResponse(400, new Headers(), body('VALIDATION_ERROR', details)) as ValidationError;
    expect(error.details).toEqual(details);
    expect(error.issues[0]?.issues[0]?.path).toEqual(['source']);
  });

  it('reads retryAfter from the header first, then from the rate-limit details', () => {
    const details = { limit: 10, remaining: 0, resetTime: 1, retryAfter: 7 };
    const fromDetails = errorFromResponse(
      429,
      new Headers(),
      body('RATE_LIMITED', details),
    ) as RateLimitedError;
    expect(fromDetails.retryAfter).toBe(7);
    expect(fromDetails.rateLimit).toEqual(details);
    const headers = new Headers({ 'retry-after': '3' });
    const fromHeader = errorFromResponse(429, headers, body('RATE_LIMITED', details)) as RateLimitedError;
    expect(fromHeader.retryAfter).toBe(3);
  });

  it('maps a spec status without the error object by status, taking the request id from the header', () => {
    const error = errorFromResponse(429, new Headers({ 'retry-after': '2', 'x-request-id': 'req_h' }), '');
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', requestId: 'req_h', retryAfter: 2 });
  });

  it('turns other statuses into UnexpectedResponseError, keeping the body', () => {
    const error = errorFromResponse(502, new Headers(), '<html>Bad gateway</html>');
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({
      status: 502,
      code: 'UNEXPECTED_RESPONSE',
      body: '<html>Bad gateway</html>',
    });
    expect(error.requestId).toBeUndefined();
  });
});

describe('network errors', () => {
  it('TimeoutError and ConnectionError are CustomerApiErrors with a code and status 0', () => {
    const timeout = new TimeoutError(100);
    expect(timeout).toBeInstanceOf(ConnectionError);
    expect(timeout).toBeInstanceOf(CustomerApiError);
    expect(timeout).toMatchObject({ name: 'TimeoutError', code: 'TIMEOUT', status: 0, timeoutMs: 100 });
    const cause = new Error('socket hang up');
    const connection = new ConnectionError('Request failed', { cause });
    expect(connection).toBeInstanceOf(CustomerApiError);
    expect(connection).toMatchObject({
      name: 'ConnectionError',
      code: 'CONNECTION_ERROR',
      status: 0,
      message: 'Request failed',
      detail: 'Request failed',
      cause,
      requestId: undefined,
      body: undefined,
    });
    expect([...connection.headers]).toEqual([]);
  });

  it('ConnectionError finds the socket error code in the cause chain', () => {
    const cause = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    });
    expect(new ConnectionError('failed', { cause }).errno).toBe('ECONNRESET');
  });
});

describe('parseRetryAfterSeconds', () => {
  it('reads delta seconds (fractions too) and HTTP dates, and ignores junk', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfterSeconds('5', now)).toBe(5);
    expect(parseRetryAfterSeconds('0.25', now)).toBe(0.25);
    expect(parseRetryAfterSeconds('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    for (const junk of [null, '', '-1', 'soon']) expect(parseRetryAfterSeconds(junk, now)).toBeUndefined();
  });
});
