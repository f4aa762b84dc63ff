import { ConnectionError, RateLimitedError, TimeoutError, ValidationError } from '@customer-api/client';
import { describe, expect, it } from 'vitest';
import { deriveTool } from './derive.js';
import { errorResult, toErrorObject } from './errors.js';

const getAudience = deriveTool('getAudience');
const headers = new Headers({ 'x-request-id': 'req_1' });

function textOf(result: ReturnType<typeof errorResult>): string {
  const [block] = result.content;
  return block?.type === 'text' ? block.text : '';
}

describe('error results', () => {
  it('maps path parameters in API validation issues back to tool arguments', () => {
    const body = {
      code: 'VALIDATION_ERROR',
      detail: 'Invalid request',
      details: [
        {
          field: 'path',
          issues: [{ code: 'validation_failed', message: 'Too long', path: ['audience_id'] }],
        },
      ],
      requestId: 'req_1',
      status: 400,
      title: 'Bad Request',
      type: 'http://x/errors/validation_error',
    };
    const error = new ValidationError({ status: 400, headers, body, error: body as never });
    const result = errorResult(getAudience, toErrorObject(error, 'http://x'));
    expect(result.isError).toBe(true);
    expect(result).not.toHaveProperty('structuredContent');
    expect(textOf(result)).toContain('Arguments to fix: audienceId: Too long.');
    expect(textOf(result)).toContain(`Error object: ${JSON.stringify(body)}`);
  });

  it('tells how long to wait when rate limited', () => {
    const body = {
      code: 'RATE_LIMITED',
      detail: 'Slow down',
      details: { limit: 10, remaining: 0, resetTime: 1, retryAfter: 7 },
      requestId: 'req_2',
      status: 429,
      title: 'Too Many Requests',
      type: 'http://x/errors/rate_limited',
    };
    const error = new RateLimitedError({ status: 429, headers, body, error: body as never });
    const text = textOf(errorResult(getAudience, toErrorObject(error, 'http://x')));
    expect(text).toMatch(/^get_audience failed: RATE_LIMITED \(429\): Slow down\n/);
    expect(text).toContain('Wait details.retryAfter seconds');
    expect(text).toContain('"retryAfter":7');
  });

  it('names the base URL when the API cannot be reached or is too slow', () => {
    const refused = toErrorObject(new ConnectionError('connect ECONNREFUSED'), 'http://api.test');
    expect(refused).toMatchObject({
      code: 'CONNECTION_ERROR',
      detail: 'connect ECONNREFUSED (http://api.test)',
    });
    expect(toErrorObject(new TimeoutError(50), 'http://api.test')).toMatchObject({
      code: 'TIMEOUT',
      timeoutMs: 50,
    });
  });

  it('keeps the message of unexpected failures out of results', () => {
    const object = toErrorObject(new Error('secret internals'), 'http://x');
    expect(JSON.stringify(errorResult(getAudience, object))).not.toContain('secret internals');
    expect(object.code).toBe('MCP_SERVER_ERROR');
  });
});
