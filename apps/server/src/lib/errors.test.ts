import { describe, expect, it } from 'vitest';
import { errorBody, toDomainError } from '../http/errors.js';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from './errors.js';

// Each error as a client receives it: the error object the root handler builds from it.
const body = (err: DomainError) => errorBody('https://api.test', 'req_1', err);

describe('domain errors as the API answers them', () => {
  it('give each class its status, code, type and title, with the message as detail', () => {
    const cases: Array<[DomainError, number, string, string]> = [
      [new NotFoundError('Page not found.'), 404, 'NOT_FOUND', 'Not Found'],
      [new ConflictError('Name taken.'), 409, 'CONFLICT', 'Conflict'],
      [new PreconditionFailedError('Changed.'), 412, 'PRECONDITION_FAILED', 'Precondition Failed'],
      [new ForbiddenError('Not yours.'), 403, 'FORBIDDEN', 'Forbidden'],
      [new UnauthorizedError('No key.'), 401, 'UNAUTHORIZED', 'Unauthorized'],
      [new ValidationError('Bad body.'), 400, 'VALIDATION_ERROR', 'Bad Request'],
    ];
    for (const [err, status, code, title] of cases) {
      expect(body(err)).toEqual({
        type: `https://api.test/errors/${code.toLowerCase()}`,
        title,
        status,
        code,
        detail: err.message,
        requestId: 'req_1',
      });
      // The root handler keeps it as it is, and logs carry the class's name.
      expect(toDomainError(err)).toBe(err);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(err.constructor.name);
    }
    expect(new NotFoundError('x').name).toBe('NotFoundError');
  });

  it('describe a validation error about one area with its field, message and path', () => {
    expect(body(ValidationError.of('query', 'limit must be at most 100.', ['limit'])).details).toEqual([
      {
        field: 'query',
        issues: [{ code: 'validation_failed', message: 'limit must be at most 100.', path: ['limit'] }],
      },
    ]);
    expect(body(ValidationError.of('body', 'Request body is not valid JSON.'))).toMatchObject({
      status: 400,
      detail: 'Request body is not valid JSON.',
      details: [
        {
          field: 'body',
          issues: [{ code: 'validation_failed', message: 'Request body is not valid JSON.', path: [] }],
        },
      ],
    });
  });

  it('answer 429 with the limit, the wait and its numbers', () => {
    const details = { limit: 100, remaining: 0, resetTime: 1_790_000_000_000, retryAfter: 7 };
    const err = new RateLimitedError(details);
    expect(body(err)).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      detail: 'Rate limit of 100 requests per window exceeded; retry in 7 s.',
      details,
    });
    expect(err.reason).toBe('key');
    const share = new RateLimitedError(details, 'Too many at once.', 'tenant_share');
    expect(body(share).detail).toBe('Too many at once.');
    expect(share.reason).toBe('tenant_share');
  });

  it('answer 503 with a fixed text unless given one, keeping the cause for the log', () => {
    const cause = new Error('connection refused');
    const err = new ServiceUnavailableError(undefined, { cause });
    expect(body(err)).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      detail: 'The service is temporarily unavailable; retry after a short delay.',
    });
    expect(body(err)).not.toHaveProperty('details');
    expect(err.cause).toBe(cause);
    expect(new ServiceUnavailableError('Later.').message).toBe('Later.');
    expect(new ConflictError('Taken.', { cause }).cause).toBe(cause);
    expect(new DomainError('INTERNAL', 'Oops.', undefined, { cause }).cause).toBe(cause);
  });
});
