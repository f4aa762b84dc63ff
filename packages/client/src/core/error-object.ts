import type { ApiError, RateLimitDetails, ValidationErrorDetail } from '@customer-api/contract';
import { ERRORS } from '../generated/routes.js';

// The contract's `ErrorSchema`, checked by hand: the client reads every error response through
// this, and the schema would bring Zod into every bundle (error-object.test.ts holds the two
// to the same answers). As with the schema, unknown fields are dropped.

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** The specification's error object in `body`, without unknown fields; `undefined` when it is not one. */
export function asApiError(body: unknown): ApiError | undefined {
  if (!isObject(body)) return undefined;
  const { code, detail, details, requestId, status, title, type } = body;
  if (!isString(code) || !Object.hasOwn(ERRORS, code)) return undefined;
  if (!isString(detail) || !isString(requestId) || !isNumber(status) || !isString(title) || !isString(type)) {
    return undefined;
  }
  const error: ApiError = { code: code as ApiError['code'], detail, requestId, status, title, type };
  if (details === undefined) return error;
  const checked = Array.isArray(details) ? validationDetails(details) : rateLimitDetails(details);
  return checked ? { ...error, details: checked } : undefined;
}

function validationDetails(details: unknown[]): ValidationErrorDetail[] | undefined {
  const out: ValidationErrorDetail[] = [];
  for (const detail of details) {
    if (!isObject(detail) || !isString(detail.field) || !Array.isArray(detail.issues)) return undefined;
    const issues: ValidationErrorDetail['issues'] = [];
    for (const issue of detail.issues) {
      if (!isObject(issue) || !isString(issue.code) || !isString(issue.message)) return undefined;
      if (!Array.isArray(issue.path) || !issue.path.every(isString)) return undefined;
      issues.push({ code: issue.code, message: issue.message, path: [...issue.path] });
    }
    out.push({ field: detail.field, issues });
  }
  return out;
}

function rateLimitDetails(details: unknown): RateLimitDetails | undefined {
  if (!isObject(details)) return undefined;
  const { limit, remaining, resetTime, retryAfter } = details;
  if (!isNumber(limit) || !isNumber(remaining) || !isNumber(resetTime) || !isNumber(retryAfter))
    return undefined;
  return { limit, remaining, resetTime, retryAfter };
}
