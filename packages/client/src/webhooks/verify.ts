import { WEBHOOK_HEADERS, type WebhookDeliveryBody } from '@customer-api/contract';
import { parseWebhookDelivery, WebhookVerificationError } from './events.js';

/** Header bags `verifyWebhook` accepts: a Fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** Options of {@link verifyWebhook} and {@link verifyWebhookAsync}. */
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
 * Verifies a webhook delivery and returns its parsed, typed body (synchronous form, on runtimes
 * with `node:crypto`: Node.js, Bun, Deno; {@link verifyWebhookAsync} works everywhere).
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
 * @throws TypeError where the runtime has no `node:crypto` (use {@link verifyWebhookAsync}).
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookDeliveryBody {
  const check = prepare(options);
  const { createHmac, timingSafeEqual } = nodeCrypto();
  const matches = check.keys.some((key) => {
    const expected = createHmac('sha256', key).update(check.message).digest();
    return check.candidates.some(
      (candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
    );
  });
  if (!matches) throw new WebhookVerificationError('invalid_signature', check.failure);
  return finish(check);
}

/**
 * {@link verifyWebhook} on the Web Crypto API: the same checks, on every runtime (Node.js, Bun,
 * Deno, Workers, browsers). In a Worker: `await verifyWebhookAsync({ secret, rawBody: await
 * request.arrayBuffer().then((b) => new Uint8Array(b)), headers: request.headers })`.
 *
 * @throws WebhookVerificationError with a `reason` when any check fails (the promise rejects).
 */
export async function verifyWebhookAsync(options: VerifyWebhookOptions): Promise<WebhookDeliveryBody> {
  const check = prepare(options);
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError('verifyWebhookAsync needs the Web Crypto API (crypto.subtle)');
  for (const raw of check.keys) {
    const key = await subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const candidate of check.candidates) {
      // Web Crypto compares in constant time.
      if (await subtle.verify('HMAC', key, candidate, check.message)) return finish(check);
    }
  }
  throw new WebhookVerificationError('invalid_signature', check.failure);
}

type Bytes = Uint8Array<ArrayBuffer>;

/** What remains once headers and timestamps passed: does any key's HMAC of `message` equal a candidate? */
interface SignatureCheck {
  keys: Bytes[];
  message: Bytes;
  candidates: Bytes[];
  /** The message of the `invalid_signature` error when none matches. */
  failure: string;
  body: Bytes;
  header: HeaderReader;
}

interface Clock {
  now: number;
  toleranceMs: number;
}

type HeaderReader = (name: string) => string | undefined;

const utf8 = new TextEncoder();

/** Every check that needs no HMAC, in the order the synchronous form always made them. */
function prepare(options: VerifyWebhookOptions): SignatureCheck {
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
  const check =
    standardSignature !== undefined
      ? standardCheck(standardSignature, header, body, secrets, clock)
      : specCheck(specSignature ?? '', header, body, secrets, clock);
  // An empty key (a `whsec_` secret that is not base64) signs nothing; Web Crypto refuses one.
  return { ...check, keys: check.keys.filter((key) => key.length > 0) };
}

/** Parses the verified body and checks the id headers against it. */
function finish(check: SignatureCheck): WebhookDeliveryBody {
  const delivery = parseWebhookDelivery(check.body);
  for (const idHeader of [WEBHOOK_HEADERS.eventId, WEBHOOK_HEADERS.standardId]) {
    const id = check.header(idHeader);
    if (id !== undefined && id !== delivery.eventId) {
      throw new WebhookVerificationError(
        'event_id_mismatch',
        `${idHeader} does not match the body's eventId`,
      );
    }
  }
  return delivery;
}

function specCheck(
  value: string,
  header: HeaderReader,
  body: Bytes,
  secrets: string[],
  clock: Clock,
): SignatureCheck {
  checkTimestamp(header(WEBHOOK_HEADERS.timestamp), 1, clock);
  const candidates = value
    .split(/[\s,]+/)
    .filter((part) => part.startsWith('sha256='))
    .map((part) => fromHex(part.slice('sha256='.length)));
  return {
    keys: secrets.map((secret) => utf8.encode(secret)),
    message: body,
    candidates,
    failure: 'X-Webhook-Signature-256 does not match',
    body,
    header,
  };
}

function standardCheck(
  value: string,
  header: HeaderReader,
  body: Bytes,
  secrets: string[],
  clock: Clock,
): SignatureCheck {
  const id = header(WEBHOOK_HEADERS.standardId);
  const timestamp = header(WEBHOOK_HEADERS.standardTimestamp);
  if (!id) throw new WebhookVerificationError('missing_header', 'Missing webhook-id header');
  checkTimestamp(timestamp, 1000, clock);
  const prefix = utf8.encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  const candidates = value
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => fromBase64(part.slice('v1,'.length), true));
  return {
    keys: secrets.map((secret) =>
      fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, false),
    ),
    message,
    candidates,
    failure: 'webhook-signature does not match',
    body,
    header,
  };
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
function rawBytes(rawBody: unknown): Bytes {
  if (typeof rawBody === 'string') return utf8.encode(rawBody);
  if (rawBody instanceof Uint8Array) return new Uint8Array(rawBody);
  throw new TypeError('rawBody must be the request body as received (string or bytes), not parsed JSON');
}

/** Invalid hex decodes to no bytes, which matches nothing. */
function fromHex(text: string): Bytes {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) return new Uint8Array(0);
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Base64 (or base64url) to bytes; `strict` refuses anything but the standard alphabet with padding. */
function fromBase64(text: string, strict: boolean): Bytes {
  if (strict && !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return new Uint8Array(0);
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, ''));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}

type NodeCrypto = Pick<typeof import('node:crypto'), 'createHmac' | 'timingSafeEqual'>;

/** `node:crypto` without a static import, so the module loads (and bundles) on every runtime. */
function nodeCrypto(): NodeCrypto {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = runtime?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
  if (typeof crypto?.createHmac !== 'function') {
    throw new TypeError('verifyWebhook needs node:crypto; use `await verifyWebhookAsync(…)` on this runtime');
  }
  return crypto;
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
