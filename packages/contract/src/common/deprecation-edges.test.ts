import { describe, expect, it } from 'vitest';
import { deprecationHeaders, markDeprecated } from './deprecation.js';

// Dates a maintainer may write into an operation's `deprecated` metadata, and what an OpenAPI
// reader sees of a deprecation. Complements deprecation.test.ts.

type Operation = {
  deprecated?: boolean;
  description?: string;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
};

describe('deprecation dates', () => {
  it.each([
    // Each is a date JavaScript reads, but none is ISO 8601: a reader of the headers could not.
    ['January 15, 2027'],
    ['Fri 2027-01-15'],
    ['2027-01-1'],
  ])('refuses %j as since, and as sunset, naming the field', (value) => {
    expect(() => deprecationHeaders({ since: value, sunset: '2027-07-15' })).toThrow(
      `deprecation since must be an ISO 8601 date, got ${JSON.stringify(value)}`,
    );
    expect(() => deprecationHeaders({ since: '2027-01-15', sunset: value })).toThrow(
      `deprecation sunset must be an ISO 8601 date, got ${JSON.stringify(value)}`,
    );
  });

  it('accepts a sunset on the day of the deprecation', () => {
    expect(deprecationHeaders({ since: '2027-01-15', sunset: '2027-01-15' })).toEqual({
      Deprecation: '@1799971200',
      Sunset: 'Fri, 15 Jan 2027 00:00:00 GMT',
    });
  });
});

describe('a deprecated operation in OpenAPI', () => {
  it('describes itself with the dates alone when nothing replaces it and it had no description', () => {
    const op: Operation = { responses: { '200': {} } };
    markDeprecated(op, { since: '2027-01-15', sunset: '2027-07-15' });
    expect(op.description).toBe('Deprecated since 2027-01-15; removed after Thu, 15 Jul 2027 00:00:00 GMT.');
  });

  it('declares both headers with what they mean and a schema the sent values match', () => {
    const op: Operation = { responses: { '200': {}, '404': {} } };
    const deprecation = { since: '1969-12-31', sunset: '2027-07-15' };
    markDeprecated(op, deprecation);
    const declared = {
      Deprecation: {
        description: expect.stringMatching(/^RFC 9745: this operation is deprecated; .+/),
        schema: { type: 'string', pattern: '^@-?[0-9]+$' },
      },
      Sunset: {
        description: 'RFC 8594: when this operation stops working (HTTP date).',
        schema: { type: 'string' },
      },
    };
    expect(op.responses?.['200']?.headers).toEqual(declared);
    expect(op.responses?.['404']?.headers).toEqual(declared);
    // A date before 1970 is a negative number of seconds, which the pattern allows.
    const sent = deprecationHeaders(deprecation);
    expect(sent.Deprecation).toMatch(new RegExp(declared.Deprecation.schema.pattern));
    expect(sent.Deprecation).toBe('@-86400');
  });
});
