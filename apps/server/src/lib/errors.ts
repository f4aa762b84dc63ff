import type { ErrorCode, RateLimitDetails, ValidationErrorDetail } from '@customer-api/contract';

// The errors services, repos and lib throw on purpose. They know nothing of HTTP: the root
// handler in http/errors.ts turns each into the specification's error object.

/** Base of every error the service answers on purpose; the root handler turns it into the error object. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ValidationErrorDetail[] | RateLimitDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 404 NOT_FOUND: missing, under another parent, or another tenant's. */
export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** 409 CONFLICT: the request contradicts the current state. */
export class ConflictError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, undefined, options);
  }
}

/** 412 PRECONDITION_FAILED: an `If-Match` naming a tag the resource no longer has. */
export class PreconditionFailedError extends DomainError {
  constructor(message: string) {
    super('PRECONDITION_FAILED', message);
  }
}

/** 403 FORBIDDEN: authenticated but not allowed. */
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** 401 UNAUTHORIZED: no valid credentials. */
export class UnauthorizedError extends DomainError {
  constructor(message: string) {
    super('UNAUTHORIZED', message);
  }
}

/** 400 VALIDATION_ERROR with the specification's details (`field` is body, query, path or headers). */
export class ValidationError extends DomainError {
  constructor(message: string, details?: ValidationErrorDetail[]) {
    super('VALIDATION_ERROR', message, details);
  }

  /** A validation error about one input area. */
  static of(
    field: 'body' | 'query' | 'path' | 'headers',
    message: string,
    path: string[] = [],
  ): ValidationError {
    return new ValidationError(message, [{ field, issues: [{ code: 'validation_failed', message, path }] }]);
  }
}

/** Which limit a 429 reached: the key's or the address's window, the tenant's database share, large responses. */
export type RateLimitReason = 'key' | 'address' | 'tenant_share' | 'large_responses';

/** 429 RATE_LIMITED; `reason` names the limit that was reached (a metrics label). */
export class RateLimitedError extends DomainError {
  constructor(
    details: RateLimitDetails,
    message = `Rate limit of ${details.limit} requests per window exceeded; retry in ${details.retryAfter} s.`,
    readonly reason: RateLimitReason = 'key',
  ) {
    super('RATE_LIMITED', message, details);
  }
}

/** 503 SERVICE_UNAVAILABLE. */
export class ServiceUnavailableError extends DomainError {
  constructor(
    message = 'The service is temporarily unavailable; retry after a short delay.',
    options?: { cause?: unknown },
  ) {
    super('SERVICE_UNAVAILABLE', message, undefined, options);
  }
}
