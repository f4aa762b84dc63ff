import { randomBytes } from 'node:crypto';

/** Crockford base32 in lower case, as TypeID uses it. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Produces a new identifier for a prefix, e.g. `newId('page')` -> `page_01j…` (26 characters after `_`). */
export type IdSource = (prefix: string) => string;

/** Random bytes drawn from the CSPRNG 4 KiB at a time (one call per ~400 ids, not two per id). */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function random(length: number): Buffer {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + length);
  poolOffset += length;
  return out;
}

/** Makes UUIDv7s as 16 bytes (see {@link uuidV7Generator}), at `nowMs` or the clock's now. */
export type UuidV7Source = (nowMs?: number) => Uint8Array;

/**
 * A source of UUIDv7s as 16 bytes: 48-bit Unix milliseconds, then a 12-bit counter that keeps ids
 * it creates in the same millisecond in creation order, then 62 random bits. It keeps its last
 * instant, so its ids never go back in time when the clock does. The process uses one
 * ({@link uuidV7Bytes}); a test makes its own, so instants it passes leave other tests' ids alone.
 */
export function uuidV7Generator(): UuidV7Source {
  let lastMs = 0;
  let counter = 0;
  return (nowMs = Date.now()) => {
    let ms = nowMs;
    if (ms <= lastMs) {
      ms = lastMs;
      counter += 1;
      if (counter > 0xfff) {
        ms += 1;
        counter = 0;
      }
    } else {
      counter = random(2).readUInt16BE(0) & 0x7ff;
    }
    lastMs = ms;
    const bytes = new Uint8Array(16);
    bytes.set(random(8), 8);
    for (let i = 5; i >= 0; i -= 1) {
      bytes[i] = ms % 256;
      ms = Math.floor(ms / 256);
    }
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
    return bytes;
  };
}

/** The process's UUIDv7 source: ids in creation order across everything the process makes. */
export const uuidV7Bytes: UuidV7Source = uuidV7Generator();

/**
 * Encodes 16 bytes as 26 lower-case Crockford base32 characters (the TypeID suffix): the 128 bits
 * after two zero bits, five at a time from the most significant.
 */
export function encodeBase32(bytes: Uint8Array): string {
  let out = '';
  let pending = 0;
  let bits = 2;
  for (const byte of bytes) {
    pending = ((pending << 8) | byte) & 0x1fff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(pending >> bits) & 31];
    }
  }
  return out;
}

/** Default {@link IdSource}: TypeID-style `<prefix>_<base32 UUIDv7>`, sortable by creation time. */
export const newId: IdSource = (prefix) => `${prefix}_${encodeBase32(uuidV7Bytes())}`;

/** True when `value` looks like an identifier with the given prefix. */
export function hasIdShape(value: string, prefix: string): boolean {
  return (
    value.length === prefix.length + 27 &&
    value.startsWith(`${prefix}_`) &&
    /^[0-7][0-9a-hjkmnp-tv-z]{25}$/.test(value.slice(prefix.length + 1))
  );
}
