import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@customer-api/contract';

const SECRET_PREFIX = 'whsec_';

/** HMAC keys by secret (each is derived once, not per delivery); emptied when it reaches 1024. */
const keys = new Map<string, KeyObject>();

function cachedKey(cacheKey: string, derive: () => Buffer): KeyObject {
  let key = keys.get(cacheKey);
  if (!key) {
    if (keys.size >= 1024) keys.clear();
    key = createSecretKey(derive());
    keys.set(cacheKey, key);
  }
  return key;
}

/** A new signing secret: `whsec_` + 32 random bytes in standard base64 (DESIGN, Webhooks). */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The specification's `X-Webhook-Signature-256` value: `sha256=` + hex HMAC-SHA256 of the raw
 * body, keyed by the whole secret string as UTF-8 so GitHub-style `sha256=` verifiers work as is.
 */
export function specSignature(secret: string, body: string): string {
  const key = cachedKey(`spec:${secret}`, () => Buffer.from(secret, 'utf8'));
  return `sha256=${createHmac('sha256', key).update(body, 'utf8').digest('hex')}`;
}

/**
 * One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by
 * the base64-decoded part of the secret after `whsec_`.
 */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = cachedKey(`std:${secret}`, () =>
    Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'),
  );
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The secrets a subscription signs with right now. */
export interface SigningSecrets {
  /** The newest secret. */
  current: string;
  /** The secret replaced by a rotation, while its overlap window lasts; else undefined. */
  previous?: string | undefined;
}

/** What one delivery request is signed over. */
export interface SignInput {
  eventId: string;
  /** The exact bytes sent as the request body. */
  body: string;
  /** Signing time, Unix milliseconds. */
  timestampMs: number;
  secrets: SigningSecrets;
}

/**
 * Every signature header of one delivery. The spec's single-valued `X-Webhook-Signature-256`
 * keeps using the previous secret during a rotation overlap (receivers that hold the old secret
 * keep verifying; the new one takes over when the overlap ends), while `webhook-signature`
 * carries one signature per live secret, newest first, as Standard Webhooks allows.
 */
export function signDelivery(input: SignInput): Record<string, string> {
  const { eventId, body, timestampMs, secrets } = input;
  const seconds = Math.floor(timestampMs / 1000);
  const live = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  return {
    [WEBHOOK_HEADERS.signature]: specSignature(secrets.previous ?? secrets.current, body),
    [WEBHOOK_HEADERS.timestamp]: String(timestampMs),
    [WEBHOOK_HEADERS.eventId]: eventId,
    [WEBHOOK_HEADERS.standardId]: eventId,
    [WEBHOOK_HEADERS.standardTimestamp]: String(seconds),
    [WEBHOOK_HEADERS.standardSignature]: live
      .map((secret) => standardSignature(secret, eventId, seconds, body))
      .join(' '),
  };
}
