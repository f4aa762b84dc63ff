import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { BODY, DELIVERY, NOW, newSecret } from '../test/webhook-delivery.js';
import { type VerifyWebhookOptions, verifyWebhook, verifyWebhookAsync } from './verify.js';

// A receiver's edge cases: a secret rotation seen from the receiving side, missing secrets and a
// missing Standard Webhooks id. Every case runs through both forms (node:crypto and Web Crypto),
// which must give the same verdict. Complements verify.test.ts.

/** The Standard Webhooks headers of a delivery signed with `secret` only (third-party signer). */
function standardHeaders(secret: string, id: string = DELIVERY.eventId): Record<string, string> {
  const at = new Date(NOW);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(NOW / 1000),
    'webhook-signature': new Webhook(secret).sign(id, at, BODY),
  };
}

/** The specification's headers of a delivery signed with `secret` only (GitHub-style signer). */
async function specHeaders(secret: string): Promise<Record<string, string>> {
  return {
    'X-Webhook-Signature-256': await githubSign(secret, BODY),
    'X-Webhook-Timestamp': String(NOW),
    'X-Webhook-Event-Id': DELIVERY.eventId,
  };
}

type Verdict = { accepted: true } | { accepted: false; name: string; reason?: string; message: string };

/** Both forms' verdicts on one delivery; they must agree. */
async function verdicts(options: Omit<VerifyWebhookOptions, 'rawBody' | 'now'>): Promise<Verdict[]> {
  const full = { rawBody: BODY, now: NOW, ...options };
  const settle = async (run: () => unknown): Promise<Verdict> => {
    let delivery: unknown;
    try {
      delivery = await run();
    } catch (error) {
      const { name, reason, message } = error as { name: string; reason?: string; message: string };
      return { accepted: false, name, message, ...(reason === undefined ? {} : { reason }) };
    }
    expect(delivery).toEqual(DELIVERY);
    return { accepted: true };
  };
  const verdict = [await settle(() => verifyWebhook(full)), await settle(() => verifyWebhookAsync(full))];
  expect(verdict[1]).toEqual(verdict[0]);
  return verdict;
}

describe('a receiver holding two secrets during a rotation', () => {
  const oldSecret = newSecret();
  const currentSecret = newSecret();
  const receiver = [oldSecret, currentSecret];

  it.each([
    ['the old', oldSecret],
    ['the new', currentSecret],
  ])('accepts a Standard Webhooks delivery signed with %s secret only', async (_which, signer) => {
    for (const secret of [receiver, [...receiver].reverse()]) {
      const [sync] = await verdicts({ secret, headers: standardHeaders(signer) });
      expect(sync).toEqual({ accepted: true });
    }
  });

  it.each([
    ['the old', oldSecret],
    ['the new', currentSecret],
  ])('accepts a specification-signed delivery signed with %s secret only', async (_which, signer) => {
    for (const secret of [receiver, [...receiver].reverse()]) {
      const [sync] = await verdicts({ secret, headers: await specHeaders(signer) });
      expect(sync).toEqual({ accepted: true });
    }
  });

  it('refuses a delivery signed with neither', async () => {
    const [sync] = await verdicts({ secret: receiver, headers: standardHeaders(newSecret()) });
    expect(sync).toMatchObject({ accepted: false, reason: 'invalid_signature' });
  });
});

describe('a receiver without a secret', () => {
  it.each([
    ['an empty secret', ''],
    ['an empty list', []],
    ['a list with an empty secret', [newSecret(), '']],
  ])('refuses to verify with %s, whatever the delivery', async (_case, secret) => {
    const signer = newSecret();
    const [sync] = await verdicts({ secret, headers: standardHeaders(signer) });
    expect(sync).toEqual({ accepted: false, name: 'TypeError', message: 'A signing secret is required' });
  });
});

describe('Standard Webhooks headers without an id', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
  ])('refuses a delivery whose webhook-id is %s', async (_case, id) => {
    const secret = newSecret();
    const { 'webhook-id': _signedId, ...rest } = standardHeaders(secret);
    const headers = id === undefined ? rest : { ...rest, 'webhook-id': id };
    const [sync] = await verdicts({ secret, headers });
    expect(sync).toEqual({
      accepted: false,
      name: 'WebhookVerificationError',
      reason: 'missing_header',
      message: 'Missing webhook-id header',
    });
  });
});
