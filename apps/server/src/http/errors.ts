import {
  ERROR_CATALOG,
  type ApiError as ErrorBody,
  type ValidationErrorDetail,
} from '@customer-api/contract';
import { RequestValidationError } from '@ts-rest/fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { causeOf, isDatabaseUnavailable, isDataException, isStatementTimeout } from '../db/errors.js';
import { TenantShareExceeded } from '../db/tenant-share.js';
import { DomainError, RateLimitedError, ServiceUnavailableError, ValidationError } from '../lib/errors.js';

/** 429 for a tenant whose share of the database stayed used up for the whole queue wait. */
function tenantShareError(err: TenantShareExceeded): RateLimitedError {
  const retryAfter = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
  return new RateLimitedError(
    { limit: err.limit, remaining: 0, resetTime: Date.now() + err.retryAfterMs, retryAfter },
    `This tenant already runs ${err.limit} database operations at once (its share); retry in ${retryAfter} s or send fewer requests in parallel.`,
    'tenant_share',
  );
}

interface Issue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined;
}

function issuesOf(err: { issues?: ReadonlyArray<Issue> } | null): ValidationErrorDetail['issues'] {
  return (err?.issues ?? []).map((issue) => ({
    code: 'validation_failed',
    message: issue.message,
    path: (issue.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p)),
  }));
}

/** Converts ts-rest's request validation failure into the specification's validation details. */
export function fromRequestValidation(err: RequestValidationError): ValidationError {
  const areas: Array<[ValidationErrorDetail['field'], unknown]> = [
    ['path', err.pathParams],
    ['headers', err.headers],
    ['query', err.query],
    ['body', err.body],
  ];
  const details = areas
    .filter(([, e]) => e)
    .map(([field, e]) => ({ field, issues: issuesOf(e as { issues?: ReadonlyArray<Issue> }) }));
  const fields = details.map((d) => d.field).join(', ');
  return new ValidationError(`Invalid request ${fields}.`, details);
}

/** `1048576` as `1,048,576`. */
const grouped = (n: number) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');

/** What the request that failed tells about it: the body limit of its route. */
export interface ErrorContext {
  bodyLimit?: number | undefined;
  /** The body's field bounds in words, when its route declares them. */
  bodyBounds?: string | undefined;
}

/** Maps Fastify's own client errors (parsing, content type, size, bad URL) to VALIDATION_ERROR. */
function fromFastifyError(err: FastifyError, context: ErrorContext): DomainError | undefined {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const limit = context.bodyLimit;
    const bounds = context.bodyBounds ? ` (${context.bodyBounds})` : '';
    return ValidationError.of(
      'body',
      limit === undefined
        ? 'Request body is larger than this operation accepts.'
        : `Request body is larger than ${grouped(limit)} bytes, the most this operation accepts${bounds}.`,
    );
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return ValidationError.of('headers', 'Unsupported Content-Type; send application/json.', [
      'content-type',
    ]);
  }
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return ValidationError.of('path', 'A path parameter is longer than 100 characters; no id is that long.');
  if (
    err instanceof SyntaxError ||
    err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    err.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
  ) {
    return ValidationError.of('body', 'Request body is not valid JSON.');
  }
  if (err.code === 'FST_ERR_BAD_URL')
    return ValidationError.of('path', 'The URL path is not valid (undecodable escape).');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new ValidationError(`Malformed request: ${err.code ?? 'bad request'}.`, [
      { field: 'body', issues: [{ code: 'validation_failed', message: err.message, path: [] }] },
    ]);
  }
  return undefined;
}

/** Classifies any thrown value into a domain error; unknown failures become INTERNAL. */
export function toDomainError(err: unknown, context: ErrorContext = {}): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof RequestValidationError) return fromRequestValidation(err);
  const wrapped = causeOf(err, DomainError);
  if (wrapped) return wrapped;
  const share = causeOf(err, TenantShareExceeded);
  if (share) return tenantShareError(share);
  if (isStatementTimeout(err)) {
    return new ServiceUnavailableError(
      'The request needed more database time than one request may use; narrow it (for example a longer search text) or retry later.',
      { cause: err },
    );
  }
  if (isDatabaseUnavailable(err)) return new ServiceUnavailableError(undefined, { cause: err });
  if (isDataException(err))
    return ValidationError.of(
      'body',
      'The request contains a value that cannot be stored (for example a NUL character).',
    );
  const fastifyError =
    err && typeof err === 'object' && 'code' in err
      ? fromFastifyError(err as FastifyError, context)
      : undefined;
  if (fastifyError) return fastifyError;
  return new DomainError('INTERNAL', 'An unexpected error occurred.', undefined, { cause: err });
}

/** Builds the specification's error object. */
export function errorBody(baseUrl: string, requestId: string, err: DomainError): ErrorBody {
  const { status, title } = ERROR_CATALOG[err.code];
  return {
    type: `${baseUrl}/errors/${err.code.toLowerCase()}`,
    title,
    status,
    code: err.code,
    detail: err.message,
    ...(err.details === undefined ? {} : { details: err.details }),
    requestId,
  };
}

/**
 * The one root error handler: every failure leaves the process as the error object. INTERNAL and
 * SERVICE_UNAVAILABLE carry fixed text; the real error is only logged, with the request id.
 */
export function rootErrorHandler(baseUrl: string) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions?.config as { bodyBounds?: string } | undefined;
    const domain = toDomainError(err, {
      bodyLimit: request.routeOptions?.bodyLimit,
      bodyBounds: config?.bodyBounds,
    });
    if (domain.code === 'INTERNAL') request.log.error({ err }, 'unhandled error');
    else if (domain.code === 'SERVICE_UNAVAILABLE') request.log.warn({ err }, 'database unavailable');
    if (domain instanceof RateLimitedError && domain.details && 'retryAfter' in domain.details) {
      reply.header('retry-after', String(domain.details.retryAfter));
    }
    if (domain.code === 'SERVICE_UNAVAILABLE') reply.header('retry-after', '1');
    const body = errorBody(baseUrl, request.id, domain);
    return reply.status(body.status).type('application/json; charset=utf-8').send(body);
  };
}
