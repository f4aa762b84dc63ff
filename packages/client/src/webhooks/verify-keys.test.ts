import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BODY, DELIVERY, NOW } from '../test/webhook-delivery.js';
import { type VerifyWebhookOptions, verifyWebhook, verifyWebhookAsync } from './verify.js';

// Secrets in every base64 form a receiver may paste, signatures under a label the receiver does
// not know, and runtimes without the crypto API a form needs. Complements verify-formats.test.ts
// (whose secrets are random, so they need not hold every character these cases are about).

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/**
 * A fixed 31-byte key: its base64 starts with `+/+/` (written `-_-_` in base64url) and ends with
 * `==`, so each alphabet and each length of padding is exercised on every run.
 */
const KEY = Buffer.concat([Buffer.from([0xfb, 0xff, 0xbf]), Buffer.alloc(28, 0x41)]);
const KEY_BASE64 = KEY.toString('base64');
const KEY_BASE64URL = KEY.toString('base64url');
const SECRET = `whsec_${KEY_BASE64}`;

/** Standard Webhooks headers of the delivery signed with {@link SECRET} at NOW. */
const standard = () => ({
  'webhook-id': DELIVERY.eventId,
  'webhook-timestamp': String(NOW / 1000),
  'webhook-signature': new Webhook(SECRET).sign(DELIVERY.eventId, new Date(NOW), BODY),
});

/** The reason both forms give, or `accepted`; they must agree. */
async function verdict(options: Pick<VerifyWebhookOptions, 'headers'> & Partial<VerifyWebhookOptions>) {
  const full = { secret: SECRET, rawBody: BODY, now: NOW, ...options };
  const settle = async (run: () => unknown) => {
    try {
      expect(await run()).toEqual(DELIVERY);
      return 'accepted';
    } catch (error) {
      return (error as { reason?: string; message: string }).reason ?? (error as Error).message;
    }
  };
  const sync = await settle(() => verifyWebhook(full));
  expect(await settle(() => verifyWebhookAsync(full))).toBe(sync);
  return sync;
}

describe('a Standard Webhooks secret', () => {
  it('holds the characters and padding this suite is about', () => {
    expect(KEY_BASE64).toMatch(/^\+\/\+\/[A-Za-z0-9]+==$/);
    expect(KEY_BASE64URL).toMatch(/^-_-_[A-Za-z0-9]+$/);
  });

  it.each([
    ['base64 with its == padding', `whsec_${KEY_BASE64}`],
    ['base64 without whsec_', KEY_BASE64],
    ['base64url without padding', `whsec_${KEY_BASE64URL}`],
    ['base64url with padding', `whsec_${KEY_BASE64URL}==`],
  ])('verifies written as %s', async (_form, secret) => {
    expect(await verdict({ headers: standard(), secret })).toBe('accepted');
  });
});

describe('a signature under a label the receiver does not know', () => {
  it('is refused in the specification header, even under a label as long as sha256=', async () => {
    const hex = createHmac('sha256', SECRET).update(BODY).digest('hex');
    const headers = (signature: string) => ({
      'X-Webhook-Signature-256': signature,
      'X-Webhook-Timestamp': String(NOW),
    });
    expect(await verdict({ headers: headers(`sha256=${hex}`) })).toBe('accepted');
    for (const label of ['sha256:', 'sha512=']) {
      expect(await verdict({ headers: headers(`${label}${hex}`) }), label).toBe('invalid_signature');
    }
  });

  it('is refused in webhook-signature when only another version carries it', async () => {
    const headers = standard();
    const [, signature] = headers['webhook-signature'].split(',');
    for (const label of ['v2,', 'v0,', 'v1;']) {
      const other = { ...headers, 'webhook-signature': `${label}${signature}` };
      expect(await verdict({ headers: other }), label).toBe('invalid_signature');
    }
  });
});

describe('a runtime without the crypto API a form needs', () => {
  it('makes verifyWebhook point to verifyWebhookAsync when node:crypto is missing', () => {
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined);
    expect(() => verifyWebhook({ secret: SECRET, rawBody: BODY, now: NOW, headers: standard() })).toThrow(
      new TypeError('verifyWebhook needs node:crypto; use `await verifyWebhookAsync(…)` on this runtime'),
    );
  });

  it.each([
    ['no crypto global', undefined],
    ['a crypto global without subtle', {}],
  ])('makes verifyWebhookAsync name the Web Crypto API with %s', async (_case, crypto) => {
    const headers = standard();
    vi.stubGlobal('crypto', crypto);
    await expect(verifyWebhookAsync({ secret: SECRET, rawBody: BODY, now: NOW, headers })).rejects.toThrow(
      new TypeError('verifyWebhookAsync needs the Web Crypto API (crypto.subtle)'),
    );
  });
});
