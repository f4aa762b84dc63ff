import { ID_PREFIXES } from '@customer-api/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBase32, hasIdShape, newId, uuidV7Generator } from './ids.js';

describe('TypeID-style identifiers', () => {
  it('are <prefix>_<26 lower-case base32 characters> for every prefix', () => {
    for (const prefix of ID_PREFIXES) {
      const id = newId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`));
      expect(hasIdShape(id, prefix)).toBe(true);
    }
    expect(newId('account')).toMatch(/^account_[a-z0-9]{26}$/);
  });

  it('sort by creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => newId('page'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carry a version 7 UUID with its timestamp in the first 48 bits', () => {
    const bytes = uuidV7Generator()(0xfedcba987654);
    expect((bytes[6] ?? 0) >> 4).toBe(7);
    expect((bytes[8] ?? 0) >> 6).toBe(2);
    expect(Buffer.from(bytes.subarray(0, 6)).toString('hex')).toBe('fedcba987654');
  });

  it('encode 16 bytes as the 128-bit number they spell, in Crockford base32', () => {
    const reference = (bytes: Uint8Array) => {
      const n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
      return n
        .toString(32)
        .padStart(26, '0')
        .replace(/[i-v]/g, (c) => '0123456789abcdefghjkmnpqrstvwxyz'[parseInt(c, 32)] as string);
    };
    expect(encodeBase32(new Uint8Array(16))).toBe('0'.repeat(26));
    expect(encodeBase32(new Uint8Array(16).fill(255))).toBe(`7${'z'.repeat(25)}`);
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (bytes) => encodeBase32(bytes) === reference(bytes),
      ),
    );
  });

  it('encode 128 bits losslessly in 26 characters, preserving byte order', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        (a, b) => {
          const ea = encodeBase32(a);
          const eb = encodeBase32(b);
          const cmp = Buffer.compare(Buffer.from(a), Buffer.from(b));
          return (
            ea.length === 26 && Math.sign(ea.localeCompare(eb)) === Math.sign(cmp) && (cmp !== 0 || ea === eb)
          );
        },
      ),
    );
  });
});
