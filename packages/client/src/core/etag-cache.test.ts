import { describe, expect, it } from 'vitest';
import { EtagCache } from './etag-cache.js';

const body = (chars: number) => ({ etag: '"t"', text: 'x'.repeat(chars) });

describe('EtagCache', () => {
  it('evicts the least recently used entries beyond maxChars, and keeps no body larger than it', () => {
    const cache = new EtagCache({ maxChars: 10 });
    cache.set('a', body(4));
    cache.set('b', body(4));
    cache.get('a');
    cache.set('c', body(4));
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map(Boolean)).toEqual([true, false, true]);
    cache.set('big', body(11));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('replaces an entry in place and counts its new size', () => {
    const cache = new EtagCache({ maxChars: 10 });
    cache.set('a', body(8));
    cache.set('a', body(2));
    cache.set('b', body(8));
    expect(cache.size).toBe(2);
    cache.delete('a');
    cache.set('c', body(2));
    expect([cache.get('b'), cache.get('c')].map(Boolean)).toEqual([true, true]);
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => new EtagCache({ maxChars: 0 })).toThrow(RangeError);
    expect(() => new EtagCache({ maxEntries: 1.5 })).toThrow(RangeError);
    expect(new EtagCache().size).toBe(0);
  });
});
