import type { SecretBox } from './secret-box.js';

/** The response field that carries a signing secret (createWebhookSubscription, rotateWebhookSubscriptionSecret). */
export const SECRET_FIELD = 'signingSecret';

/** A response as kept: its text with any secret sealed in place, and that sealed value. */
export interface SealedResponse {
  body: string;
  /** The sealed value standing in the body for the secret; null when the body carries none. */
  sealedSecret: string | null;
}

/** The JSON string `value` as it appears in a body, and a replacer immune to `$` patterns. */
const quoted = (value: string) => JSON.stringify(value);

/**
 * The form in which a response is kept: a top-level `signingSecret` of `body` (the object that
 * `bytes` serialises) is replaced in the text by its sealed value, so the kept row holds nothing
 * readable; every other byte stays as sent.
 */
export function sealResponse(box: SecretBox, body: unknown, bytes: string): SealedResponse {
  const secret = secretOf(body);
  if (secret === undefined) return { body: bytes, sealedSecret: null };
  const sealedSecret = box.seal(secret);
  return { body: swap(bytes, secret, sealedSecret), sealedSecret };
}

/** The exact text first sent for a kept response: its sealed secret opened and put back. */
export function openResponse(box: SecretBox, kept: SealedResponse): string {
  if (kept.sealedSecret === null) return kept.body;
  return swap(kept.body, kept.sealedSecret, box.open(kept.sealedSecret));
}

/** A kept body with its sealed secret `from` replaced by `to` (a rotation to a newer key). */
export function reseal(body: string, from: string, to: string): string {
  return swap(body, from, to);
}

/** The top-level signing secret of a response body, if it has one. */
export function secretOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[SECRET_FIELD];
  return typeof value === 'string' ? value : undefined;
}

function swap(text: string, from: string, to: string): string {
  const needle = quoted(from);
  const at = text.indexOf(needle);
  if (at < 0) throw new Error('a kept response does not hold the secret it is stored with');
  return text.slice(0, at) + quoted(to) + text.slice(at + needle.length);
}
