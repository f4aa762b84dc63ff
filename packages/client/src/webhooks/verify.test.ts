import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeServer, json, startServer } from '../test/fake-server.js';
import { BODY, DELIVERY, NOW, newSecret } from '../test/webhook-delivery.js';
import {
  type VerifyWebhookOptions,
  verifyWebhook,
  verifyWebhookAsync,
  type WebhookHeaders,
} from './verify.js';

const SECRET = newSecret();

interface Signing {
  body?: string;
  id?: string;
  secrets?: string[];
  /** Signing time in ms. */
  at?: number;
}

/** Headers as this service sends them, produced by third-party signers. */
async function signedHeaders({
  body = BODY,
  id = DELIVERY.eventId,
  secrets = [SECRET],
  at = NOW,
}: Signing = {}) {
  const seconds = Math.floor(at / 1000);
  const standard = secrets
    .map((secret) => new Webhook(secret).sign(id, new Date(seconds * 1000), body))
    .join(' ');
  return {
    'X-Webhook-Signature-256': await githubSign(secrets[0] ?? '', body),
    'X-Webhook-Timestamp': String(at),
    'X-Webhook-Event-Id': id,
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': standard,
  } as Record<string, string>;
}

const verify = (headers: WebhookHeaders, extra: Partial<Parameters<typeof verifyWebhook>[0]> = {}) =>
  verifyWebhook({ secret: SECRET, rawBody: BODY, headers, now: NOW, ...extra });

const rejection = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error as { name: string; reason: string };
  }
  throw new Error('expected a rejection');
};

const without = (headers: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([key]) => !names.includes(key.toLowerCase())));

describe('verifyWebhook with third-party signed vectors', () => {
  it('accepts a delivery signed with both schemes and returns the typed body', async () => {
    const delivery = verify(await signedHeaders());
    expect(delivery).toEqual(DELIVERY);
    expect(delivery.payload.type).toBe('page.version.created');
  });

  it('accepts the specification header alone (GitHub-style signer) and the Standard Webhooks headers alone', async () => {
    const headers = await signedHeaders();
    expect(verify(without(headers, 'webhook-id', 'webhook-timestamp', 'webhook-signature'))).toEqual(
      DELIVERY,
    );
    expect(verify(without(headers, 'x-webhook-signature-256', 'x-webhook-timestamp'))).toEqual(DELIVERY);
  });

  it('accepts Fetch Headers, Buffer bodies and Node-style lower-case header records', async () => {
    const headers = await signedHeaders();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verify(new Headers(headers), { rawBody: Buffer.from(BODY) })).toEqual(DELIVERY);
    expect(verify(lower, { rawBody: new TextEncoder().encode(BODY) })).toEqual(DELIVERY);
  });

  it('agrees with the standardwebhooks verifier on the same vector', async () => {
    const headers = await signedHeaders({ at: Date.now() });
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(DELIVERY);
    expect(verifyWebhook({ secret: SECRET, rawBody: BODY, headers })).toEqual(DELIVERY);
  });

  it('accepts either signature during a secret rotation, and either secret on the receiver', async () => {
    const oldSecret = newSecret();
    const headers = await signedHeaders({ secrets: [oldSecret, SECRET] });
    const standardOnly = without(headers, 'x-webhook-signature-256', 'x-webhook-timestamp');
    expect(verify(standardOnly, { secret: SECRET })).toEqual(DELIVERY);
    expect(verify(standardOnly, { secret: oldSecret })).toEqual(DELIVERY);
    expect(verify(headers, { secret: [SECRET, oldSecret] })).toEqual(DELIVERY);
    expect(rejection(() => verify(standardOnly, { secret: newSecret() })).reason).toBe('invalid_signature');
  });

  it('accepts the service’s rotation overlap: spec header with the old secret, both in webhook-signature', async () => {
    const oldSecret = newSecret();
    const headers = {
      ...(await signedHeaders({ secrets: [SECRET, oldSecret] })),
      'X-Webhook-Signature-256': await githubSign(oldSecret, BODY),
    };
    expect(verify(headers, { secret: SECRET })).toEqual(DELIVERY);
    expect(verify(headers, { secret: oldSecret })).toEqual(DELIVERY);
  });

  it('can require the Standard Webhooks headers', async () => {
    const specOnly = without(await signedHeaders(), 'webhook-id', 'webhook-timestamp', 'webhook-signature');
    expect(rejection(() => verify(specOnly, { requireStandardSignature: true })).reason).toBe(
      'missing_signature',
    );
  });
});

describe('verifyWebhook rejections', () => {
  it('rejects a tampered body under either scheme', async () => {
    const headers = await signedHeaders();
    const tampered = BODY.replace('version_1', 'version_2');
    expect(rejection(() => verify(headers, { rawBody: tampered }))).toMatchObject({
      name: 'WebhookVerificationError',
      reason: 'invalid_signature',
    });
    const standardOnly = without(headers, 'x-webhook-signature-256', 'x-webhook-timestamp');
    expect(rejection(() => verify(standardOnly, { rawBody: tampered })).reason).toBe('invalid_signature');
  });

  it('rejects a wrong secret and malformed or forged signatures', async () => {
    const headers = await signedHeaders();
    expect(rejection(() => verify(headers, { secret: newSecret() })).reason).toBe('invalid_signature');
    const specOnly = without(headers, 'webhook-id', 'webhook-timestamp', 'webhook-signature');
    for (const bad of ['sha256=zz', 'sha256=', 'md5=abc', '', await githubSign('guess', BODY)]) {
      expect(rejection(() => verify({ ...specOnly, 'X-Webhook-Signature-256': bad })).reason).toBe(
        'invalid_signature',
      );
    }
    expect(rejection(() => verify({ ...headers, 'webhook-signature': 'v1,!!!! v2,abc' })).reason).toBe(
      'invalid_signature',
    );
  });

  it('rejects stale and future timestamps beyond the tolerance, and accepts within it', async () => {
    const old = await signedHeaders({ at: NOW - 301_000 });
    expect(rejection(() => verify(old)).reason).toBe('stale_timestamp');
    const future = await signedHeaders({ at: NOW + 301_000 });
    expect(rejection(() => verify(future)).reason).toBe('stale_timestamp');
    expect(verify(await signedHeaders({ at: NOW - 200_000 }))).toEqual(DELIVERY);
    expect(verify(old, { toleranceSeconds: 600 })).toEqual(DELIVERY);
  });

  it('rejects a stale spec timestamp even when only that scheme is present', async () => {
    const specOnly = without(
      await signedHeaders({ at: NOW - 3_600_000 }),
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    );
    expect(rejection(() => verify(specOnly)).reason).toBe('stale_timestamp');
    expect(rejection(() => verify(without(specOnly, 'x-webhook-timestamp'))).reason).toBe('missing_header');
    expect(rejection(() => verify({ ...specOnly, 'X-Webhook-Timestamp': '1e12' })).reason).toBe(
      'invalid_timestamp',
    );
  });

  it('explains a parsed body passed as rawBody', async () => {
    const headers = await signedHeaders();
    expect(() => verify(headers, { rawBody: DELIVERY as unknown as string })).toThrow(/not parsed JSON/);
  });

  it('rejects a delivery without any signature', () => {
    expect(rejection(() => verify({ 'content-type': 'application/json' })).reason).toBe('missing_signature');
  });

  it('rejects an event id header that differs from the body', async () => {
    const headers = await signedHeaders({ id: 'evt_other' });
    expect(rejection(() => verify(headers)).reason).toBe('event_id_mismatch');
  });

  it('rejects a correctly signed body that is not a delivery', async () => {
    const body = JSON.stringify({ ...DELIVERY, payload: { type: 'page.deleted' } });
    const headers = await signedHeaders({ body });
    expect(rejection(() => verify(headers, { rawBody: body })).reason).toBe('invalid_body');
    const notJson = await signedHeaders({ body: 'nope' });
    expect(rejection(() => verify(notJson, { rawBody: 'nope' })).reason).toBe('invalid_body');
  });
});

describe('a receiver on loopback', () => {
  let receiver: FakeServer | undefined;
  afterEach(async () => {
    await receiver?.close();
  });

  it('verifies a delivery POSTed over HTTP from its raw bytes', async () => {
    const results: string[] = [];
    receiver = await startServer((req, res) => {
      try {
        const delivery = verifyWebhook({ secret: SECRET, rawBody: req.body, headers: req.headers });
        results.push(delivery.eventId);
        json(res, 200, {});
      } catch (error) {
        results.push((error as { reason: string }).reason);
        json(res, 400, {});
      }
    });
    const headers = await signedHeaders({ at: Date.now() });
    const send = (body: string) =>
      fetch(receiver?.url ?? '', {
        method: 'POST',
        body,
        headers: { ...headers, 'content-type': 'application/json' },
      });
    expect((await send(BODY)).status).toBe(200);
    expect((await send(BODY.replace('"draft"', '"published"'))).status).toBe(400);
    expect(results).toEqual([DELIVERY.eventId, 'invalid_signature']);
  });
});

describe('verifyWebhookAsync (Web Crypto)', () => {
  /** What a receiver sees: the body, or the reason of the rejection. */
  const outcome = async (run: () => unknown) => {
    try {
      return { delivery: await run() };
    } catch (error) {
      return { reason: (error as { reason?: string }).reason ?? (error as Error).name };
    }
  };

  it('gives the same verdict as verifyWebhook on valid, forged, stale and malformed deliveries', async () => {
    const headers = await signedHeaders();
    const oldSecret = newSecret();
    const rotated = await signedHeaders({ secrets: [oldSecret, SECRET] });
    const standardOnly = without(headers, 'x-webhook-signature-256', 'x-webhook-timestamp');
    const specOnly = without(headers, 'webhook-id', 'webhook-timestamp', 'webhook-signature');
    const cases: Array<Partial<VerifyWebhookOptions>> = [
      { headers },
      { headers: specOnly },
      { headers: standardOnly, rawBody: new TextEncoder().encode(BODY) },
      { headers: new Headers(rotated), secret: [newSecret(), oldSecret] },
      { headers, rawBody: BODY.replace('version_1', 'version_2') },
      { headers: specOnly, rawBody: `${BODY} ` },
      { headers, secret: newSecret() },
      { headers: specOnly, secret: 'not the secret' },
      { headers, now: NOW + 301_000 },
      { headers: { ...standardOnly, 'webhook-signature': 'v1,!!!not-base64' } },
      { headers: { ...specOnly, 'X-Webhook-Signature-256': 'sha256=abc' } },
      { headers: { ...specOnly, 'X-Webhook-Event-Id': 'evt_other' } },
      { headers: without(standardOnly, 'webhook-timestamp') },
      { headers: {} },
      { headers: specOnly, requireStandardSignature: true },
      { headers, secret: 'whsec_' },
    ];
    const verdicts = [];
    for (const extra of cases) {
      const options = { secret: SECRET, rawBody: BODY, headers: {}, now: NOW, ...extra };
      const sync = await outcome(() => verifyWebhook(options));
      expect(await outcome(() => verifyWebhookAsync(options))).toEqual(sync);
      verdicts.push('delivery' in sync ? 'ok' : sync.reason);
    }
    expect(verdicts).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'invalid_signature',
      'invalid_signature',
      'invalid_signature',
      'invalid_signature',
      'stale_timestamp',
      'invalid_signature',
      'invalid_signature',
      'event_id_mismatch',
      'missing_header',
      'missing_signature',
      'missing_signature',
      'invalid_signature',
    ]);
  });

  it('verifies a delivery signed by the standardwebhooks library at the current time', async () => {
    const headers = await signedHeaders({ at: Date.now() });
    await expect(verifyWebhookAsync({ secret: SECRET, rawBody: BODY, headers })).resolves.toEqual(DELIVERY);
  });
});
