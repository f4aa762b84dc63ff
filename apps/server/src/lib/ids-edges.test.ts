import { describe, expect, it } from 'vitest';
import { encodeBase32, hasIdShape, newId, uuidV7Generator } from './ids.js';

// A generator keeps its last instant: each test makes its own, so the instants it passes are the
// ones its ids carry, whatever other tests (sharing this worker's modules) made before.
const FUTURE = 0xfe0000000000;

const msOf = (bytes: Uint8Array) => Number.parseInt(Buffer.from(bytes.subarray(0, 6)).toString('hex'), 16);
const counterOf = (bytes: Uint8Array) => (((bytes[6] ?? 0) & 0x0f) << 8) | (bytes[7] ?? 0);
const tailOf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(8)).toString('hex');

describe('ids made in the same millisecond', () => {
  it('count up from at most 2047, and past 4095 move on to the next millisecond at 0', () => {
    const uuidV7Bytes = uuidV7Generator();
    const ids = Array.from({ length: 4200 }, () => uuidV7Bytes(FUTURE));
    const first = ids[0] as Uint8Array;
    expect(msOf(first)).toBe(FUTURE);
    expect(counterOf(first)).toBeLessThanOrEqual(0x7ff);
    const rollover = ids.findIndex((bytes) => msOf(bytes) !== FUTURE);
    expect(rollover).toBe(0x1000 - counterOf(first));
    expect(counterOf(ids[rollover - 1] as Uint8Array)).toBe(0xfff);
    expect(msOf(ids[rollover] as Uint8Array)).toBe(FUTURE + 1);
    expect(counterOf(ids[rollover] as Uint8Array)).toBe(0);
    const encoded = ids.map(encodeBase32);
    for (let i = 1; i < encoded.length; i += 1)
      expect((encoded[i] as string) > (encoded[i - 1] as string)).toBe(true);
  });

  it('never go back in time when the clock does', () => {
    const uuidV7Bytes = uuidV7Generator();
    const later = uuidV7Bytes(FUTURE + 100);
    const earlier = uuidV7Bytes(FUTURE + 50);
    expect(msOf(earlier)).toBe(FUTURE + 100);
    expect(counterOf(earlier)).toBe(counterOf(later) + 1);
    expect(encodeBase32(earlier) > encodeBase32(later)).toBe(true);
  });

  it('carry fresh random bits in every id, across many refills of the random pool', () => {
    const uuidV7Bytes = uuidV7Generator();
    const tails = Array.from({ length: 1500 }, (_, i) => tailOf(uuidV7Bytes(FUTURE + 1000 + i)));
    expect(new Set(tails).size).toBe(tails.length);
    // Each of the 62 random bits (all of bytes 8 to 15 but the variant's top two) is set in some
    // id and clear in another.
    const randomBits = [0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
    const samples = Array.from({ length: 200 }, (_, i) => uuidV7Bytes(FUTURE + 3000 + i).subarray(8));
    randomBits.forEach((mask, i) => {
      expect(samples.reduce((or, bytes) => or | (bytes[i] ?? 0), 0) & mask).toBe(mask);
      expect(samples.reduce((and, bytes) => and & (bytes[i] ?? 0), 0xff) & mask).toBe(0);
    });
    // The random first counter varies between milliseconds too.
    const counters = Array.from({ length: 50 }, (_, i) => counterOf(uuidV7Bytes(FUTURE + 5000 + i)));
    expect(new Set(counters).size).toBeGreaterThan(1);
  });
});

describe('hasIdShape', () => {
  const id = newId('page');
  const suffix = '01jdq5n7e8xk2m3p4r6s9tvwyz';

  it('refuses another prefix, a missing separator, a wrong length or characters outside the alphabet', () => {
    expect(hasIdShape(id, 'page')).toBe(true);
    expect(hasIdShape(id, 'pag')).toBe(false);
    expect(hasIdShape(`pagx_${suffix}`, 'page')).toBe(false);
    expect(hasIdShape(`page-${suffix}`, 'page')).toBe(false);
    expect(hasIdShape(`page_${suffix}0`, 'page')).toBe(false);
    expect(hasIdShape(`page_${suffix.slice(1)}`, 'page')).toBe(false);
    expect(hasIdShape(`xpage_${suffix}`, 'page')).toBe(false);
    expect(hasIdShape(`page_${suffix}`, 'page')).toBe(true);
    expect(hasIdShape(`page_${suffix.toUpperCase()}`, 'page')).toBe(false);
    // 128 bits fit 26 characters only with a first character of at most 7.
    expect(hasIdShape(`page_8${suffix.slice(1)}`, 'page')).toBe(false);
    for (const letter of ['i', 'l', 'o', 'u']) {
      expect(hasIdShape(`page_${suffix.slice(0, 25)}${letter}`, 'page')).toBe(false);
    }
    expect(hasIdShape(`page_7${'z'.repeat(25)}`, 'page')).toBe(true);
    expect(hasIdShape(`page_0${'0'.repeat(25)}`, 'page')).toBe(true);
  });
});
