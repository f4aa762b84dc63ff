import { ErrorSchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { asApiError } from './error-object.js';

const VALID = {
  code: 'RATE_LIMITED',
  detail: 'Slow down',
  requestId: 'req_1',
  status: 429,
  title: 'Too Many Requests',
  type: 'http://x/errors/rate_limited',
};
const ISSUES = [
  { field: 'body', issues: [{ code: 'validation_failed', message: 'Required', path: ['name'] }] },
];
const LIMITS = { limit: 10, remaining: 0, resetTime: 1, retryAfter: 2 };

const BODIES: Array<[string, unknown]> = [
  ['the error object', VALID],
  ['with validation details', { ...VALID, details: ISSUES }],
  ['with rate-limit details', { ...VALID, details: LIMITS }],
  ['with unknown fields, dropped', { ...VALID, extra: 1, details: { ...LIMITS, extra: 2 } }],
  ['with details set to undefined', { ...VALID, details: undefined }],
  ['an unknown code', { ...VALID, code: 'TEAPOT' }],
  ['a missing requestId', { ...VALID, requestId: undefined }],
  ['a string status', { ...VALID, status: '429' }],
  ['details of the wrong shape', { ...VALID, details: { limit: 1 } }],
  [
    'an issue path with a number',
    { ...VALID, details: [{ field: 'body', issues: [{ ...ISSUES[0]?.issues[0], path: [0] }] }] },
  ],
  ['details as a string', { ...VALID, details: 'x' }],
  ['an array', [VALID]],
  ['null', null],
  ['text', 'Bad Gateway'],
];

describe('reading an error response', () => {
  it.each(BODIES)('agrees with the contract’s ErrorSchema on %s', (_name, body) => {
    const parsed = ErrorSchema.safeParse(body);
    expect(asApiError(body)).toEqual(parsed.success ? parsed.data : undefined);
  });
});
