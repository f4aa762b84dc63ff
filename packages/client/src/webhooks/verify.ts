import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_HEADERS, type WebhookDeliveryBody } from '@customer-api/contract';
import { parseWebhookDelivery, WebhookVerificationError } from './events.js';

/** Header bags `verifyWebhook` accepts: a Fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /**
   * The subscription's `signingSecret` (`whsec_…`). During a rotation pass both the new and the
   * old secret: a delivery signed with either is accepted.
   */
  secret: string | readonly string[];
  /** The request body exactly as received (bytes or text): never re-serialised JSON. */
  rawBody: string | Uint8Array;
  /** The request headers (any case). */
  headers: WebhookHeaders;
  /** How far a signature timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in ms since the epoch (default `Date.now()`); for tests and replays of old captures. */
  now?: number;
  /**
   * Require the Standard Webhooks headers (default false). The specification's
   * `X-Webhook-Signature-256` covers the body only, so its timestamp could be replaced by someone
   * replaying a captured delivery; the Standard Webhooks signature also covers id and timestamp.
   */
  requireStandardSignature?: boolean;
}

/** Default of {@link VerifyWebhookOptions.toleranceSeconds}: five minutes. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Verifies a webhook delivery and returns its parsed, typed body.
 *
 * Uses the strongest signature present:
 * - Standard Webhooks, when its headers are there: `webhook-signature: v1,<base64 HMAC-SHA256 of
 *   "id.timestamp.body">`, keyed by the base64-decoded part of the secret after `whsec_`, with
 *   `webhook-timestamp` (seconds) within the tolerance; any listed signature may match (a rotation
 *   sends two). It covers the body too, so the specification's header is then not needed (during a
 *   rotation the service keeps signing that one with the old secret);
 * - otherwise the specification's `X-Webhook-Signature-256: sha256=<hex HMAC-SHA256 of the raw
 *   body>`, keyed by the whole secret string as UTF-8, with `X-Webhook-Timestamp` (ms) within the
 *   tolerance.
 * Comparisons are constant-time. Deliveries are at-least-once: deduplicate on `eventId`.
 *
 * @example
 * ```ts
 * const delivery = verifyWebhook({ secret, rawBody: req.body, headers: req.headers });
 * if (delivery.payload.type === 'page.version.created') await enqueue(delivery.payload.versionId);
 * ```
 * @throws WebhookVerificationError with a `reason` when any check fails.
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookDeliveryBody {
  const header = headerReader(options.headers);
  const body = rawBytes(options.rawBody);
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0 || secrets.some((s) => s.length === 0))
    throw new TypeError('A signing secret is required');
  const clock = {
    now: options.now ?? Date.now(),
    toleranceMs: (options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS) * 1000,
  };
  const specSignature = header(WEBHOOK_HEADERS.signature);
  const standardSignature = header(WEBHOOK_HEADERS.standardSignature);
  if (specSignature === undefined && standardSignature === undefined) {
    throw new WebhookVerificationError('missing_signature', 'No webhook signature header');
  }
  if (options.requireStandardSignature && standardSignature === undefined) {
    throw new WebhookVerificationError('missing_signature', 'No Standard Webhooks signature header');
  }
  if (standardSignature !== undefined) {
    verifyStandardSignature(standardSignature, header, body, secrets, clock);
  } else if (specSignature !== undefined) {
    verifySpecSignature(specSignature, header, body, secrets, clock);
  }
  const delivery = parseWebhookDelivery(body);
  for (const idHeader of [WEBHOOK_HEADERS.eventId, WEBHOOK_HEADERS.standardId]) {
    const id = header(idHeader);
    if (id !== undefined && id !== delivery.eventId) {
      throw new WebhookVerificationError(
        'event_id_mismatch',
        `${idHeader} does not match the body's eventId`,
      );
    }
  }
  return delivery;
}

interface Clock {
  now: number;
  toleranceMs: number;
}

type HeaderReader = (name: string) => string | undefined;

function verifySpecSignature(
  value: string,
  header: HeaderReader,
  body: Buffer,
  secrets: string[],
  clock: Clock,
) {
  checkTimestamp(header(WEBHOOK_HEADERS.timestamp), 1, clock);
  const candidates = value
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('sha256='))
    .map((part) => decode(part.slice('sha256='.length), 'hex'));
  const matches = secrets.some((secret) => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
    return candidates.some((candidate) => safeEqual(candidate, expected));
  });
  if (!matches)
    throw new WebhookVerificationError('invalid_signature', 'X-Webhook-Signature-256 does not match');
}

function verifyStandardSignature(
  value: string,
  header: HeaderReader,
  body: Buffer,
  secrets: string[],
  clock: Clock,
) {
  const id = header(WEBHOOK_HEADERS.standardId);
  const timestamp = header(WEBHOOK_HEADERS.standardTimestamp);
  if (!id) throw new WebhookVerificationError('missing_header', 'Missing webhook-id header');
  checkTimestamp(timestamp, 1000, clock);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const candidates = value
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => decode(part.slice('v1,'.length), 'base64'));
  const matches = secrets.some((secret) => {
    const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    const expected = createHmac('sha256', key).update(signed).digest();
    return candidates.some((candidate) => safeEqual(candidate, expected));
  });
  if (!matches) throw new WebhookVerificationError('invalid_signature', 'webhook-signature does not match');
}

/** `unitMs` is 1 for millisecond timestamps, 1000 for seconds. */
function checkTimestamp(value: string | undefined, unitMs: number, clock: Clock) {
  if (value === undefined)
    throw new WebhookVerificationError('missing_header', 'Missing webhook timestamp header');
  if (!/^\d{1,16}$/.test(value))
    throw new WebhookVerificationError('invalid_timestamp', 'Malformed timestamp');
  const signedAt = Number(value) * unitMs;
  if (Math.abs(clock.now - signedAt) > clock.toleranceMs) {
    throw new WebhookVerificationError('stale_timestamp', 'Webhook timestamp is outside the tolerance');
  }
}

/** A parsed JSON object here is the usual integration mistake: its bytes are gone, so no signature can match. */
function rawBytes(rawBody: unknown): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array)
    return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new TypeError('rawBody must be the request body as received (string or bytes), not parsed JSON');
}

function decode(text: string, encoding: 'hex' | 'base64'): Buffer {
  const valid = encoding === 'hex' ? /^[0-9a-fA-F]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
  return valid.test(text) ? Buffer.from(text, encoding) : Buffer.alloc(0);
}

/** Constant-time for equal lengths; HMAC-SHA256 digests always are 32 bytes, so a length mismatch leaks nothing secret. */
function safeEqual(candidate: Buffer, expected: Buffer): boolean {
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

function headerReader(headers: WebhookHeaders): HeaderReader {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    return (name) => (headers as Headers).get(name) ?? undefined;
  }
  const lower = new Map<string, string>();
  for (const [key, value] of Object.entries(
    headers as Record<string, string | readonly string[] | undefined>,
  )) {
    if (value !== undefined)
      lower.set(key.toLowerCase(), typeof value === 'string' ? value : value.join(' '));
  }
  return (name) => lower.get(name);
}
