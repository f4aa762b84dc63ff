import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** The environment variable holding the encryption keys of stored secrets. */
export const SECRETS_KEYS_VARIABLE = 'SECRETS_ENCRYPTION_KEYS';

/** One key of {@link SECRETS_KEYS_VARIABLE}: 32 bytes and the id derived from them. */
export interface EncryptionKey {
  /** Derived from the key's bytes (see {@link keyIdOf}); stored with every value it seals. */
  readonly id: string;
  readonly key: Buffer;
}

/** Thrown when {@link SECRETS_KEYS_VARIABLE} is malformed; the message never holds key material. */
export class EncryptionKeysError extends Error {
  override readonly name = 'EncryptionKeysError';
}

/** Thrown when a stored value cannot be opened: its key is not configured, or it was altered. */
export class SealedSecretError extends Error {
  override readonly name = 'SealedSecretError';
}

const FORMAT = 'v1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=$/;
const SEALED = /^v1\.([A-Za-z0-9_-]{11})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)$/;
/** Opened values kept in memory; the cache is emptied when it reaches this many. */
const CACHE_LIMIT = 4096;

/**
 * The id of a key: the first 8 bytes of a SHA-256 of its bytes, base64url. Operators name nothing,
 * and two different keys never share an id.
 */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('customer-api secrets key id\0')
    .update(key)
    .digest()
    .subarray(0, 8)
    .toString('base64url');
}

/** A new random key in the form {@link SECRETS_KEYS_VARIABLE} takes (standard base64 of 32 bytes). */
export function generateEncryptionKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/**
 * Parses {@link SECRETS_KEYS_VARIABLE}: comma-separated keys, newest first, each the standard
 * base64 of exactly 32 random bytes (`openssl rand -base64 32`). The first seals, all open.
 */
export function parseEncryptionKeys(value: string): EncryptionKey[] {
  const entries = value.split(',').map((entry) => entry.trim());
  const keys: EncryptionKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const where = entries.length > 1 ? `entry ${index + 1} of ${entries.length}` : 'the key';
    if (entry === '')
      throw new EncryptionKeysError(`${where} is empty (keys are separated by single commas)`);
    if (!BASE64_KEY.test(entry)) {
      throw new EncryptionKeysError(
        `${where} is not the standard base64 of 32 bytes (44 characters ending in "="; make one with \`openssl rand -base64 32\`)`,
      );
    }
    const key = Buffer.from(entry, 'base64');
    const id = keyIdOf(key);
    if (keys.some((k) => k.id === id)) throw new EncryptionKeysError(`${where} repeats an earlier key`);
    keys.push({ id, key });
  }
  return keys;
}

/**
 * Authenticated encryption of stored secrets (AES-256-GCM, a random nonce per value). A sealed
 * value is `v1.<key id>.<nonce>.<ciphertext and tag>` (base64url parts); the version and key id
 * are authenticated too. The first key seals; every key opens. This is the only code that reads
 * a sealed secret.
 */
export class SecretBox {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #current: EncryptionKey;
  readonly #opened = new Map<string, string>();

  constructor(keys: readonly EncryptionKey[]) {
    const [current] = keys;
    if (!current) throw new EncryptionKeysError('at least one key is needed');
    this.#current = current;
    this.#keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.#current.id;
  }

  /** The prefix of every value sealed under the current key. */
  get currentPrefix(): string {
    return `${FORMAT}.${this.#current.id}.`;
  }

  /** Encrypts `plain` under the current key. */
  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const header = `${FORMAT}.${this.#current.id}`;
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce);
    cipher.setAAD(Buffer.from(header));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${header}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** Decrypts a value sealed by any configured key; repeated values come from memory. */
  open(sealed: string): string {
    const cached = this.#opened.get(sealed);
    if (cached !== undefined) return cached;
    const plain = this.#decrypt(sealed);
    if (this.#opened.size >= CACHE_LIMIT) this.#opened.clear();
    this.#opened.set(sealed, plain);
    return plain;
  }

  /** Whether `sealed` is already under the current key (nothing for a rotation to do). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(this.currentPrefix);
  }

  /** Whether `value` has the form of a sealed value (any key). */
  static isSealed(value: string): boolean {
    return SEALED.test(value);
  }

  #decrypt(sealed: string): string {
    const match = SEALED.exec(sealed);
    if (!match) throw new SealedSecretError('A stored secret is not in the sealed form.');
    const [, id = '', nonce = '', body = ''] = match;
    const key = this.#keys.get(id);
    if (!key) {
      throw new SealedSecretError(
        `A stored secret is sealed with key ${id}, which ${SECRETS_KEYS_VARIABLE} no longer holds: add it back, then run \`customer-api secrets rotate\`.`,
      );
    }
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < TAG_BYTES) throw new SealedSecretError('A stored secret is truncated.');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(`${FORMAT}.${id}`));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SealedSecretError(
        `A stored secret sealed with key ${id} failed authentication (altered or corrupt).`,
      );
    }
  }
}
