import { contract, ERROR_CATALOG, type ErrorCode, ErrorSchema } from '@customer-api/contract';
import type { LightMyRequestResponse } from 'fastify';
import type { FuzzRequest } from './requests.js';

/**
 * Why an answer breaks the rules, or undefined when it is right: never 5xx; every error is the
 * specification's error object whose code matches its status, a status the contract declares
 * for the operation, and the one the contract's schemas predict for a defective request.
 */
export function verdict(req: FuzzRequest, res: LightMyRequestResponse, baseUrl: string): string | undefined {
  const status = res.statusCode;
  if (status >= 500) return `${status} ${res.body.slice(0, 300)}`;
  if (status < 400) {
    return req.expect === 'any' ? undefined : `expected ${req.expect}, got ${status}`;
  }
  let body: unknown;
  try {
    body = res.json();
  } catch {
    return `${status} without a JSON body: ${res.body.slice(0, 200)}`;
  }
  const parsed = ErrorSchema.safeParse(body);
  if (!parsed.success) return `${status} not the error object: ${res.body.slice(0, 300)}`;
  const error = parsed.data;
  const catalog = ERROR_CATALOG[error.code as ErrorCode];
  if (!catalog || catalog.status !== status || error.status !== status || error.title !== catalog.title) {
    return `code ${error.code} does not match status ${status}`;
  }
  if (error.type !== `${baseUrl}/errors/${error.code.toLowerCase()}`) return `bad type URI ${error.type}`;
  if (error.requestId !== res.headers['x-request-id']) return 'requestId differs from x-request-id';
  const routerNotFound = req.routerMayRefuse && error.code === 'NOT_FOUND';
  const declared = Object.keys(contract[req.operation].responses).map(Number);
  if (!declared.includes(status) && !routerNotFound)
    return `status ${status} not declared for ${req.operation}`;
  if (req.expect === 'validation' && error.code !== 'VALIDATION_ERROR' && !routerNotFound) {
    return `expected VALIDATION_ERROR, got ${error.code}: ${error.detail}`;
  }
  if (req.expect === 'unauthorized' && error.code !== 'UNAUTHORIZED')
    return `expected UNAUTHORIZED, got ${error.code}`;
  return undefined;
}
