import fc from 'fast-check';
import type { FuzzRequest } from './requests.js';

const INVALID_JSON = [
  '{',
  '{"a":',
  'nul',
  "{'a':1}",
  '{"a":1}}',
  '{} x',
  '[',
  '"unterminated',
  '{"a":1,}',
  '\u0000',
  'NaN',
  '{"a":01}',
];

/** Content types the server does not parse: the body is refused as 400 VALIDATION_ERROR. */
const WRONG_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'image/png',
  'text/json',
];

/** Spellings of JSON the server may accept or refuse, but never with a 5xx. */
const ODD_JSON_TYPES = [
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=latin1',
  'application/json; foo=bar',
];

const ODD_KEYS: Array<string | string[]> = [
  '',
  ' ',
  'cak_',
  `cak_${'a'.repeat(5000)}`,
  'cak_ with spaces',
  'Bearer cak_x',
  '%00',
  ['cak_a', 'cak_b'],
];

const ODD_HEADERS: Array<Record<string, string>> = [
  { accept: 'text/html' },
  { accept: '*/*;q=nonsense' },
  { 'accept-encoding': 'gzip;q=2, br;q=-1' },
  { 'x-forwarded-for': '999.999.999.999, <script>' },
  { 'x-request-id': 'req_injected\tvalue' },
  { 'if-none-match': '"x"' },
  { range: 'bytes=0-1' },
  { 'x-http-method-override': 'DELETE' },
  { 'accept-language': 'x'.repeat(8000) },
];

/** JSON text nested `depth` levels (as text: a value this deep overflows JSON.stringify). */
const nestedText = (depth: number, open = '{"a":', close = '}') =>
  `${open.repeat(depth)}1${close.repeat(depth)}`;

/** Bodies deeper than the 64 levels the server accepts, at depths that once overflowed its stack. */
const DEEP_JSON = [
  nestedText(65),
  nestedText(5_000),
  nestedText(10_000, '[', ']'),
  `{"source":"s","domain":"d.example","payload":${nestedText(5_000)}}`,
  `{"role":"user","content":"c","toolCalls":[{"id":"t","name":"n","args":{},"result":${nestedText(10_000)}}]}`,
];

/** Keys that would pollute prototypes in code that copies objects: refused with a precise 400. */
const RESERVED_KEYS = [
  '{"__proto__":{"admin":true}}',
  '{"name":"x","payload":{"__proto__":{"polluted":1}}}',
  '{"payload":{"deep":{"constructor":{"prototype":{"polluted":1}}}}}',
];

const wrap = (base: FuzzRequest, patch: Partial<FuzzRequest>): FuzzRequest => ({ ...base, ...patch });

/**
 * Transport-level defects around a valid request: broken JSON, wrong or odd content types, bodies
 * over the 1 MiB limit, odd API key headers and odd other headers.
 */
export function transportMutations(base: FuzzRequest, hasBody: boolean): fc.Arbitrary<FuzzRequest> {
  const key = base.headers['x-api-key'] as string;
  const variants: fc.Arbitrary<FuzzRequest>[] = [
    fc.constantFrom(...ODD_KEYS).map((k) =>
      wrap(base, {
        category: 'odd-api-key',
        headers: { ...base.headers, 'x-api-key': k },
        expect: 'unauthorized',
      }),
    ),
    fc
      .constantFrom(...ODD_HEADERS)
      .map((h) =>
        wrap(base, { category: 'odd-headers', headers: { ...base.headers, ...h }, expect: base.expect }),
      ),
  ];
  if (hasBody) {
    const json = { 'x-api-key': key, 'content-type': 'application/json' };
    variants.push(
      fc
        .constantFrom(...INVALID_JSON)
        .map((payload) =>
          wrap(base, { category: 'invalid-json', headers: json, payload, expect: 'validation' }),
        ),
      fc
        .constantFrom(...DEEP_JSON)
        .map((payload) =>
          wrap(base, { category: 'deep-json', headers: json, payload, expect: 'validation' }),
        ),
      fc
        .constantFrom(...RESERVED_KEYS)
        .map((payload) =>
          wrap(base, { category: 'reserved-keys', headers: json, payload, expect: 'validation' }),
        ),
      fc.constantFrom(...WRONG_TYPES).map((type) =>
        wrap(base, {
          category: 'wrong-content-type',
          headers: { 'x-api-key': key, 'content-type': type },
          payload: base.payload ?? '{}',
          expect: 'validation',
        }),
      ),
      fc.constantFrom(...ODD_JSON_TYPES).map((type) =>
        wrap(base, {
          category: 'odd-json-type',
          headers: { 'x-api-key': key, 'content-type': type },
          payload: base.payload ?? '{}',
          expect: 'any',
        }),
      ),
      fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024).map((size) =>
        wrap(base, {
          category: 'huge-body',
          headers: json,
          payload: JSON.stringify({ name: 'x'.repeat(size) }),
          expect: 'validation',
        }),
      ),
    );
  }
  return fc.oneof(...variants);
}
