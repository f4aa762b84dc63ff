import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestHash } from './request-hash.js';

describe('requestHash', () => {
  it('ignores key order at every depth', () => {
    const a = { source: 's', payload: { b: 1, a: { y: [1, { q: 1, p: 2 }], x: null } } };
    const b = { payload: { a: { x: null, y: [1, { p: 2, q: 1 }] }, b: 1 }, source: 's' };
    expect(requestHash(a)).toBe(requestHash(b));
  });

  it('tells different bodies apart', () => {
    expect(requestHash({ payload: { a: 1 } })).not.toBe(requestHash({ payload: { a: '1' } }));
    expect(requestHash({ payload: [1, 2] })).not.toBe(requestHash({ payload: [2, 1] }));
    expect(requestHash({ name: 'x' })).not.toBe(requestHash({ name: 'x', domain: 'x' }));
  });

  it('drops undefined members like JSON does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('produces JSON that parses back to an equal value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
