import { describe, expect, it } from 'vitest';
import {
  COMMON_ERROR_STATUSES,
  ERROR_CATALOG,
  ErrorCodeSchema,
  ErrorSchema,
  errorResponses,
} from './errors.js';
import { ACCOUNT_ID_PATTERN, AccountIdSchema, ID_PREFIXES } from './ids.js';
import { MetadataSchema } from './metadata.js';
import { CursorSchema, emptyIsAbsent, PaginationQuerySchema } from './pagination.js';
import { KebabCaseSchema, PathIdSchema } from './primitives.js';

// The enums, patterns and bounds of the common schemas, each with a test of its own (the OpenAPI
// document test would notice a change too, but only as a diff to regenerate). Complements
// common.schemas.test.ts.

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) =>
  schema.safeParse(value).success;

/** The messages of a failed parse, as the server puts them in a 400's `details`. */
const messages = (
  schema: { safeParse(v: unknown): { error?: { issues: { message: string }[] } } },
  value: unknown,
) => schema.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];

describe('error codes', () => {
  // Specification, Errors: the code, its status and its reason phrase.
  const SPEC = {
    VALIDATION_ERROR: [400, 'Bad Request'],
    UNAUTHORIZED: [401, 'Unauthorized'],
    FORBIDDEN: [403, 'Forbidden'],
    NOT_FOUND: [404, 'Not Found'],
    CONFLICT: [409, 'Conflict'],
    RATE_LIMITED: [429, 'Too Many Requests'],
    INTERNAL: [500, 'Internal Server Error'],
    SERVICE_UNAVAILABLE: [503, 'Service Unavailable'],
    // Not in the specification: a stale If-Match (conditional requests, DESIGN's fifth round).
    PRECONDITION_FAILED: [412, 'Precondition Failed'],
  } as const;

  it.each(Object.entries(SPEC))(
    '%s is a code of the error object, with status %j',
    (code, [status, title]) => {
      expect(ErrorCodeSchema.parse(code)).toBe(code);
      expect(ERROR_CATALOG[code as keyof typeof SPEC]).toMatchObject({ status, title });
    },
  );

  it('knows no other code, in any spelling', () => {
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual(Object.keys(SPEC).sort());
    for (const bad of ['', 'not_found', 'NotFound', 'GONE', 'TIMEOUT'])
      expect(ok(ErrorCodeSchema, bad), bad).toBe(false);
  });

  it('gives every listed status the error object, and the common ones to every operation', () => {
    expect([...COMMON_ERROR_STATUSES]).toEqual([400, 401, 403, 429, 500, 503]);
    const responses = errorResponses(...COMMON_ERROR_STATUSES, 404);
    expect(Object.keys(responses).map(Number).sort()).toEqual([400, 401, 403, 404, 429, 500, 503]);
    for (const schema of Object.values(responses)) expect(schema).toBe(ErrorSchema);
  });
});

describe('identifiers', () => {
  const ACCOUNT = 'account_01jd4x3k5n8q2r6t9v0w1y2z3a';

  it('know the prefixes of DESIGN.md, Identifiers', () => {
    expect([...ID_PREFIXES].sort()).toEqual(
      [
        'account',
        'page',
        'audience',
        'version',
        'conversation',
        'message',
        'change',
        'person',
        'personlog',
        'accountlog',
        'activity',
        'topic',
        'topicentry',
        'asset',
        'session',
        'whsub',
        'evt',
        'whdel',
        'tenant',
        'req',
      ].sort(),
    );
  });

  it('accept an account id of exactly 26 lower-case letters or digits after account_', () => {
    expect(ok(AccountIdSchema, ACCOUNT)).toBe(true);
    expect(ok(AccountIdSchema, `account_${'0'.repeat(26)}`)).toBe(true);
    expect(ok(AccountIdSchema, `account_${'z'.repeat(26)}`)).toBe(true);
    expect(ACCOUNT_ID_PATTERN.test(ACCOUNT)).toBe(true);
  });

  it.each([
    ['one character short', ACCOUNT.slice(0, -1)],
    ['one character long', `${ACCOUNT}a`],
    ['with upper case', ACCOUNT.toUpperCase().replace('ACCOUNT_', 'account_')],
    ['with a hyphen', `${ACCOUNT.slice(0, -1)}-`],
    ['with another prefix', ACCOUNT.replace('account_', 'person_')],
    ['with text before it', `x${ACCOUNT}`],
    ['with text after it', `${ACCOUNT} `],
    ['embedded in a path', `accounts/${ACCOUNT}/logs`],
    ['empty', ''],
  ])('refuse an account id %s, saying which pattern it must match', (_case, value) => {
    expect(ok(AccountIdSchema, value)).toBe(false);
    expect(ACCOUNT_ID_PATTERN.test(value)).toBe(false);
    expect(messages(AccountIdSchema, value)).toContain('Must match ^account_[a-z0-9]{26}$');
  });
});

describe('path parameters', () => {
  it('accept 1 to 255 characters and refuse an empty or longer id', () => {
    expect(ok(PathIdSchema, 'p')).toBe(true);
    expect(ok(PathIdSchema, 'p'.repeat(255))).toBe(true);
    expect(ok(PathIdSchema, '')).toBe(false);
    expect(ok(PathIdSchema, 'p'.repeat(256))).toBe(false);
  });
});

describe('cursors and empty query values', () => {
  it('accept a cursor of up to 1024 characters', () => {
    expect(ok(CursorSchema, 'c'.repeat(1024))).toBe(true);
    expect(ok(CursorSchema, 'c'.repeat(1025))).toBe(false);
    expect(PaginationQuerySchema.parse({ cursor: 'c'.repeat(1024) }).cursor).toHaveLength(1024);
  });

  it('read an empty optional value as left out, and keep any other', () => {
    const schema = emptyIsAbsent(CursorSchema);
    expect(schema.parse('')).toBeUndefined();
    expect(schema.parse(undefined)).toBeUndefined();
    expect(schema.parse('abc')).toBe('abc');
    expect(ok(schema, 'c'.repeat(1025))).toBe(false);
  });
});

describe('kebab-case', () => {
  it('says what it expects when it refuses a value', () => {
    expect(messages(KebabCaseSchema, 'Contact_Update')).toContain(
      'Must be kebab-case: lower-case letters and digits separated by single hyphens',
    );
  });
});

describe('metadata', () => {
  it('accepts any subset of its fields, each a string or a list of strings', () => {
    expect(MetadataSchema.parse({})).toEqual({});
    const full = {
      title: 't',
      description: 'd',
      keywords: ['k'],
      author: 'a',
      robots: ['noindex'],
      canonicalUrl: 'https://example.com',
      ogTitle: 'o',
      ogDescription: 'o',
      ogImageUrl: 'https://example.com/i.png',
      ogImageFileId: 'asset_1',
      ogImageAlt: 'o',
      ogSiteName: 'o',
      ogUrl: 'https://example.com',
      twitterTitle: 't',
      twitterDescription: 't',
      twitterImageUrl: 'https://example.com/i.png',
      twitterImageFileId: 'asset_1',
      twitterImageAlt: 't',
      twitterSite: '@x',
      twitterCreator: '@y',
      themeColor: '#fff',
    };
    expect(MetadataSchema.parse(full)).toEqual(full);
    for (const [key, value] of Object.entries(full)) {
      const wrong = Array.isArray(value) ? 'noindex' : ['noindex'];
      expect(ok(MetadataSchema, { [key]: wrong }), key).toBe(false);
    }
  });

  it('refuses a field it does not know (a misspelling is reported, not dropped)', () => {
    expect(ok(MetadataSchema, { titel: 't' })).toBe(false);
  });
});
