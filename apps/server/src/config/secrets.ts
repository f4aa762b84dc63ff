import {
  type EncryptionKey,
  EncryptionKeysError,
  parseEncryptionKeys,
  SECRETS_KEYS_VARIABLE,
} from '../secrets/secret-box.js';
import { invalid } from './values.js';

/**
 * The keys of `SECRETS_ENCRYPTION_KEYS`, checked strictly. A production server on PostgreSQL must
 * have them: a key generated into a data directory would sit beside nothing it protects.
 */
export function encryptionKeys(
  value: string | undefined,
  production: boolean,
  databaseUrl: string | undefined,
): EncryptionKey[] | undefined {
  if (value === undefined) {
    if (production && databaseUrl) {
      throw invalid(
        `${SECRETS_KEYS_VARIABLE}: required with NODE_ENV=production and DATABASE_URL ` +
          '(the keys that encrypt webhook signing secrets; make one with `openssl rand -base64 32`)',
      );
    }
    return undefined;
  }
  try {
    return parseEncryptionKeys(value);
  } catch (err) {
    if (!(err instanceof EncryptionKeysError)) throw err;
    throw invalid(`${SECRETS_KEYS_VARIABLE} (value not shown): ${err.message}`);
  }
}
