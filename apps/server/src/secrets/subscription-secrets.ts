import { SealedSecretError, type SecretBox } from './secret-box.js';

/**
 * A subscription's stored secrets: sealed, or (rows written before sealing, until the next start or
 * `secrets rotate` seals them) plaintext.
 */
export interface StoredSecrets {
  secret: string | null;
  previousSecret: string | null;
  secretSealed: string | null;
  previousSecretSealed: string | null;
}

/** The subscription's current signing secret, readable. */
export function openCurrentSecret(box: SecretBox, row: StoredSecrets): string {
  if (row.secretSealed !== null) return box.open(row.secretSealed);
  if (row.secret !== null) return row.secret;
  throw new SealedSecretError('A webhook subscription has no signing secret stored.');
}

/** The secret a rotation replaced, readable; undefined when there is none. */
export function openPreviousSecret(box: SecretBox, row: StoredSecrets): string | undefined {
  if (row.previousSecretSealed !== null) return box.open(row.previousSecretSealed);
  return row.previousSecret ?? undefined;
}

/** The subscription's current secret in sealed form (sealing a plaintext one of an older row). */
export function sealedCurrentSecret(box: SecretBox, row: StoredSecrets): string {
  return row.secretSealed ?? box.seal(openCurrentSecret(box, row));
}
