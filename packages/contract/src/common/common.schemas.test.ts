import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ErrorCodeSchema, ErrorSchema } from './errors.js';
import { BooleanFlagSchema } from './flags.js';
import { PaginationQuerySchema, paginated } from './pagination.js';
import {
  CountSchema,
  EmptyBodySchema,
  KebabCaseSchema,
  MAX_SAFE_INTEGER,
  TimestampSchema,
} from './primitives.js';

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

describe('timestamps', () => {
  it('accept ISO 8601 UTC with a trailing Z', () => {
    expect(ok(TimestampSchema, '2026-01-31T12:00:00Z')).toBe(true);
    expect(ok(TimestampSchema, '2026-01-31T12:00:00.123Z')).toBe(true);
  });

  it('reject offsets, missing zone, dates alone and nonsense', () => {
    for (const bad of [
      '2026-01-31T12:00:00+02:00',
      '2026-01-31T12:00:00',
      '2026-01-31',
      'yesterday',
      1700000000000,
    ]) {
      expect(ok(TimestampSchema, bad), String(bad)).toBe(false);
    }
  });

  it('accept every instant Date#toISOString produces', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(0), max: new Date('9999-12-31'), noInvalidDate: true }), (d) =>
        ok(TimestampSchema, d.toISOString()),
      ),
    );
  });
});

describe('counts (0 to 9007199254740991)', () => {
  it('accept the whole range', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_SAFE_INTEGER }), (n) => ok(CountSchema, n)));
    expect(ok(CountSchema, MAX_SAFE_INTEGER)).toBe(true);
  });

  it('reject negatives, fractions and values past 2^53 - 1', () => {
    fc.assert(fc.property(fc.integer({ max: -1 }), (n) => !ok(CountSchema, n)));
    expect(ok(CountSchema, 1.5)).toBe(false);
    expect(ok(CountSchema, MAX_SAFE_INTEGER + 2)).toBe(false);
  });
});

describe('kebab-case source/type (1 to 100 characters)', () => {
  const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/);
  const kebab = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('-'));

  it('accepts lower-case words joined by single hyphens', () => {
    fc.assert(fc.property(kebab, (value) => ok(KebabCaseSchema, value)));
    expect(ok(KebabCaseSchema, 'a'.repeat(100))).toBe(true);
  });

  it('rejects upper case, leading/trailing/double hyphens, spaces, underscores, empty and over 100', () => {
    for (const bad of ['Contact-update', '-a', 'a-', 'a--b', 'a b', 'a_b', '', 'a'.repeat(101), 'é']) {
      expect(ok(KebabCaseSchema, bad), bad).toBe(false);
    }
    fc.assert(
      fc.property(
        kebab,
        fc.constantFrom('A', '_', ' ', '.', '/', '--'),
        (value, junk) => !ok(KebabCaseSchema, value + junk),
      ),
    );
  });
});

describe('pagination', () => {
  it('defaults limit to 20 and coerces query strings', () => {
    expect(PaginationQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(PaginationQuerySchema.parse({ limit: '50', cursor: 'abc' })).toEqual({ limit: 50, cursor: 'abc' });
  });

  it('accepts limits 1..100 and rejects everything else', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), (n) => ok(PaginationQuerySchema, { limit: String(n) })),
    );
    for (const bad of ['0', '101', '-1', '1.5', 'ten', '']) {
      expect(ok(PaginationQuerySchema, { limit: bad }), bad).toBe(false);
    }
  });

  it('reads an empty cursor as the first page and rejects unknown query parameters', () => {
    expect(PaginationQuerySchema.parse({ cursor: '' }).cursor).toBeUndefined();
    expect(ok(PaginationQuerySchema, { cursor: 'c'.repeat(1025) })).toBe(false);
    expect(ok(PaginationQuerySchema, { page: '2' })).toBe(false);
  });

  it('envelope requires every field and a nextCursor that is null or non-empty', () => {
    const envelope = paginated(CountSchema);
    expect(ok(envelope, { items: [1], hasMore: false, nextCursor: null, totalCount: 1 })).toBe(true);
    expect(ok(envelope, { items: [1], hasMore: true, nextCursor: 'c', totalCount: 2 })).toBe(true);
    expect(ok(envelope, { items: [1], hasMore: true, nextCursor: '', totalCount: 2 })).toBe(false);
    expect(ok(envelope, { items: [1], hasMore: false, totalCount: 1 })).toBe(false);
    expect(ok(envelope, { items: [1], hasMore: false, nextCursor: null })).toBe(false);
    expect(ok(envelope, { items: [1], hasMore: false, nextCursor: null, totalCount: -1 })).toBe(false);
  });
});

describe('boolean query flags', () => {
  it('accept true/false as text or booleans', () => {
    expect(BooleanFlagSchema.parse('true')).toBe(true);
    expect(BooleanFlagSchema.parse('false')).toBe(false);
    expect(BooleanFlagSchema.parse(true)).toBe(true);
  });

  it('reject anything else', () => {
    for (const bad of ['1', '0', 'yes', 'TRUE', '', 'null'])
      expect(ok(BooleanFlagSchema, bad), bad).toBe(false);
  });
});

describe('restore bodies', () => {
  it('accept the empty object only', () => {
    expect(ok(EmptyBodySchema, {})).toBe(true);
    expect(ok(EmptyBodySchema, { force: true })).toBe(false);
    expect(ok(EmptyBodySchema, [])).toBe(false);
    expect(ok(EmptyBodySchema, null)).toBe(false);
  });
});

describe('error object', () => {
  const base = {
    code: 'NOT_FOUND',
    detail: 'x',
    requestId: 'req_1',
    status: 404,
    title: 'Not Found',
    type: 'u',
  };

  it('requires code, detail, requestId, status, title and type', () => {
    expect(ok(ErrorSchema, base)).toBe(true);
    for (const key of Object.keys(base)) {
      const { [key]: _dropped, ...rest } = base as Record<string, unknown>;
      expect(ok(ErrorSchema, rest), key).toBe(false);
    }
  });

  it('accepts validation details and rate-limit details, nothing else', () => {
    const validation = [
      { field: 'body', issues: [{ code: 'validation_failed', message: 'm', path: ['source'] }] },
    ];
    expect(ok(ErrorSchema, { ...base, details: validation })).toBe(true);
    expect(
      ok(ErrorSchema, { ...base, details: { limit: 1, remaining: 0, resetTime: 1, retryAfter: 1 } }),
    ).toBe(true);
    expect(ok(ErrorSchema, { ...base, details: 'oops' })).toBe(false);
    expect(ok(ErrorSchema, { ...base, details: { limit: 1 } })).toBe(false);
  });

  it("knows exactly the specification's eight codes and PRECONDITION_FAILED, with their statuses and titles", () => {
    expect(ErrorCodeSchema.options).toHaveLength(9);
    expect(ERROR_CATALOG.PRECONDITION_FAILED).toMatchObject({ status: 412, title: 'Precondition Failed' });
    expect(ok(ErrorSchema, { ...base, code: 'GONE' })).toBe(false);
    expect(ERROR_CATALOG.RATE_LIMITED).toMatchObject({ status: 429, title: 'Too Many Requests' });
    expect(ERROR_CATALOG.SERVICE_UNAVAILABLE).toMatchObject({ status: 503, title: 'Service Unavailable' });
    // Each code says what it means and what to do (its error page shows both).
    for (const entry of Object.values(ERROR_CATALOG)) {
      expect(entry.meaning.length).toBeGreaterThan(40);
      expect(entry.action.length).toBeGreaterThan(40);
    }
  });
});
