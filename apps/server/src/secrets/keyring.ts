import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  type EncryptionKey,
  EncryptionKeysError,
  generateEncryptionKey,
  parseEncryptionKeys,
  SecretBox,
} from './secret-box.js';

/** The key file of a setup without `SECRETS_ENCRYPTION_KEYS`, inside `DATA_DIR`. */
export const KEY_FILE_NAME = 'secrets-encryption.key';

/** The box of in-memory databases: their data ends with the process, and so may its key. */
let processBox: SecretBox | undefined;

/**
 * The box that seals and opens stored secrets. `SECRETS_ENCRYPTION_KEYS` when set (config.ts
 * refuses to start without it in production on PostgreSQL); else, so that the embedded demo runs
 * with no configuration, a key generated once into `DATA_DIR` (see decision 0214), or for an
 * in-memory database a key of this process.
 */
export function openSecretBox(config: Pick<Config, 'secretsEncryptionKeys' | 'dataDir'>): SecretBox {
  if (config.secretsEncryptionKeys) return new SecretBox(config.secretsEncryptionKeys);
  if (config.dataDir.startsWith('memory://')) {
    processBox ??= new SecretBox(parseEncryptionKeys(generateEncryptionKey()));
    return processBox;
  }
  return new SecretBox(readOrCreateKeyFile(config.dataDir));
}

/**
 * Reads the data directory's key, creating it (owner-only) if absent. The key is written to a
 * file of this process and linked into place, so a concurrent starter reads a whole key or none,
 * and the first link wins.
 */
function readOrCreateKeyFile(dataDir: string): EncryptionKey[] {
  const path = join(dataDir, KEY_FILE_NAME);
  mkdirSync(dataDir, { recursive: true });
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${generateEncryptionKey()}\n`, { mode: 0o600 });
  try {
    linkSync(draft, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(draft, { force: true });
  }
  try {
    return parseEncryptionKeys(readFileSync(path, 'utf8').trim());
  } catch (err) {
    throw new EncryptionKeysError(
      `${path} does not hold a valid key (${(err as Error).message}); set SECRETS_ENCRYPTION_KEYS instead.`,
    );
  }
}
