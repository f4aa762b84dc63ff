import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { BODY, DELIVERY, NOW, newSecret } from '../test/webhook-delivery.js';
import { type VerifyWebhookOptions, verifyWebhook, verifyWebhookAsync } from './verify.js';

// How signatures, timestamps and headers may be written on the wire, and the edge of the timestamp
// tolerance. Every case runs through both forms (node:crypto and Web Crypto). Complements
// verify.test.ts and verify-edges.test.ts.

const SECRET = newSecret();

/** `sha256=<hex>` of the body, as the specification's header carries it. */
const specSignature = (secret: string, body = BODY) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The reason both forms give, or `accepted`; they must agree. */
async function verdict(options: Partial<VerifyWebhookOptions> & Pick<VerifyWebhookOptions, 'headers'>) {
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

const spec = (signature: string, at = NOW) => ({
  'X-Webhook-Signature-256': signature,
  'X-Webhook-Timestamp': String(at),
});

describe('the timestamp tolerance', () => {
  it.each([
    [-300_000, 'accepted'],
    [300_000, 'accepted'],
    [-300_001, 'stale_timestamp'],
    [300_001, 'stale_timestamp'],
  ])('a specification signature %i ms from now is %s (default 300 s)', async (offset, expected) => {
    expect(await verdict({ headers: spec(specSignature(SECRET), NOW + offset) })).toBe(expected);
  });

  it('counts Standard Webhooks timestamps in seconds', async () => {
    const at = new Date(NOW - 300_000);
    const headers = {
      'webhook-id': DELIVERY.eventId,
      'webhook-timestamp': String(at.getTime() / 1000),
      'webhook-signature': new Webhook(SECRET).sign(DELIVERY.eventId, at, BODY),
    };
    expect(await verdict({ headers })).toBe('accepted');
    expect(await verdict({ headers, toleranceSeconds: 299 })).toBe('stale_timestamp');
  });

  it.each(['12345678901234567', '-1', '1.5', ' 1', ''])(
    'refuses the timestamp %j as malformed',
    async (value) => {
      const headers = { ...spec(specSignature(SECRET)), 'X-Webhook-Timestamp': value };
      expect(await verdict({ headers })).toBe('invalid_timestamp');
    },
  );
});

describe('signature lists', () => {
  const wrong = specSignature('another-secret');

  it.each([
    ['after a comma', (good: string) => `${wrong},${good}`],
    ['after a space', (good: string) => `${wrong} ${good}`],
    ['after a comma and a space', (good: string) => `${wrong}, ${good}`],
    ['in upper-case hex', (good: string) => `sha256=${good.slice('sha256='.length).toUpperCase()}`],
  ])('find a specification signature %s', async (_case, write) => {
    expect(await verdict({ headers: spec(write(specSignature(SECRET))) })).toBe('accepted');
  });

  it('ignore entries of other schemes and odd-length hex', async () => {
    const good = specSignature(SECRET);
    expect(await verdict({ headers: spec(`md5=${good.slice(7)}`) })).toBe('invalid_signature');
    expect(await verdict({ headers: spec(`${good}0`) })).toBe('invalid_signature');
  });

  it('find a Standard Webhooks signature among other versions, in a Node header array', async () => {
    const at = new Date(NOW);
    const signature = new Webhook(SECRET).sign(DELIVERY.eventId, at, BODY);
    const headers = {
      'Webhook-Id': DELIVERY.eventId,
      'Webhook-Timestamp': String(NOW / 1000),
      'Webhook-Signature': ['v2,c2lnbmF0dXJl', signature],
    };
    expect(await verdict({ headers })).toBe('accepted');
  });
});

describe('secrets that sign nothing', () => {
  it('refuse every delivery with a whsec_ secret whose key is empty', async () => {
    const at = new Date(NOW);
    const headers = {
      'webhook-id': DELIVERY.eventId,
      'webhook-timestamp': String(NOW / 1000),
      'webhook-signature': new Webhook(SECRET).sign(DELIVERY.eventId, at, BODY),
    };
    expect(await verdict({ headers, secret: 'whsec_' })).toBe('invalid_signature');
  });
});

/** Standard Webhooks headers signed with `secret` for the delivery's id, at NOW. */
const standard = (secret = SECRET, id = DELIVERY.eventId) => ({
  'webhook-id': id,
  'webhook-timestamp': String(NOW / 1000),
  'webhook-signature': new Webhook(secret).sign(id, new Date(NOW), BODY),
});

describe('Standard Webhooks encodings', () => {
  it('accepts a signature without its base64 padding, and refuses one that cannot be base64', async () => {
    const headers = standard();
    const unpadded = headers['webhook-signature'].replace(/=+$/, '');
    expect(await verdict({ headers: { ...headers, 'webhook-signature': unpadded } })).toBe('accepted');
    expect(await verdict({ headers: { ...headers, 'webhook-signature': 'v1,A' } })).toBe('invalid_signature');
  });

  it('refuses a signature written in the base64url alphabet (the scheme sends standard base64)', async () => {
    // Pick a delivery whose signature holds a character the two alphabets write differently.
    const sign = (eventId: string) => {
      const body = JSON.stringify({ ...DELIVERY, eventId });
      return { body, headers: { ...standard(), 'webhook-id': eventId }, signature: '' };
    };
    let delivery = sign(DELIVERY.eventId);
    for (let i = 0; ; i++) {
      delivery = sign(`evt_${i}`);
      delivery.signature = new Webhook(SECRET).sign(
        delivery.headers['webhook-id'],
        new Date(NOW),
        delivery.body,
      );
      if (/[+/]/.test(delivery.signature)) break;
    }
    const full = { secret: SECRET, rawBody: delivery.body, now: NOW };
    expect(
      verifyWebhook({ ...full, headers: { ...delivery.headers, 'webhook-signature': delivery.signature } }),
    ).toEqual(JSON.parse(delivery.body));
    const urlSafe = delivery.signature.replace(/\+/g, '-').replace(/\//g, '_');
    expect(() =>
      verifyWebhook({ ...full, headers: { ...delivery.headers, 'webhook-signature': urlSafe } }),
    ).toThrow(expect.objectContaining({ reason: 'invalid_signature' }));
  });

  it('takes the secret as base64 with or without whsec_, in either alphabet', async () => {
    const key = SECRET.slice('whsec_'.length);
    const urlSafe = key.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    for (const secret of [SECRET, key, `whsec_${urlSafe}`]) {
      expect(await verdict({ headers: standard(), secret }), secret).toBe('accepted');
    }
  });

  it('can be required, and then accepts a delivery that has it', async () => {
    expect(await verdict({ headers: standard(), requireStandardSignature: true })).toBe('accepted');
  });

  it('reads Node header records that hold undefined entries', async () => {
    expect(await verdict({ headers: { ...standard(), 'x-forwarded-for': undefined } })).toBe('accepted');
  });
});

describe('what a refusal says', () => {
  const message = async (options: Partial<VerifyWebhookOptions> & Pick<VerifyWebhookOptions, 'headers'>) => {
    try {
      verifyWebhook({ secret: SECRET, rawBody: BODY, now: NOW, ...options });
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it('names the failed check', async () => {
    const good = spec(specSignature(SECRET));
    expect(await message({ headers: {} })).toBe('No webhook signature header');
    expect(await message({ headers: good, requireStandardSignature: true })).toBe(
      'No Standard Webhooks signature header',
    );
    expect(await message({ headers: spec(specSignature('other')) })).toBe(
      'X-Webhook-Signature-256 does not match',
    );
    expect(await message({ headers: standard(`whsec_${randomBytes(32).toString('base64')}`) })).toBe(
      'webhook-signature does not match',
    );
    expect(await message({ headers: { 'X-Webhook-Signature-256': specSignature(SECRET) } })).toBe(
      'Missing webhook timestamp header',
    );
    expect(await message({ headers: { ...good, 'X-Webhook-Timestamp': 'soon' } })).toBe(
      'Malformed timestamp',
    );
    expect(await message({ headers: spec(specSignature(SECRET), NOW - 3_600_000) })).toBe(
      'Webhook timestamp is outside the tolerance',
    );
    expect(await message({ headers: { ...good, 'X-Webhook-Event-Id': 'evt_other' } })).toBe(
      "x-webhook-event-id does not match the body's eventId",
    );
  });
});
