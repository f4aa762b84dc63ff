import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signDelivery } from './sign.js';

// Fixed secrets, a fixed timestamp and a non-ASCII body, checked against the reference signers of
// both schemes, so a wrong byte anywhere in a signature shows up (as mutation testing showed).

const secretA = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const secretB = 'whsec_+/8A/+7d3MzLu6qZiHdmVUQzIhEAAP8+/w==';
const body = JSON.stringify({ eventId: 'evt_1', payload: { title: 'Café ✓ 日本' } });
// 999 ms past a whole second: the Standard Webhooks timestamp is the second it falls in.
const timestampMs = Date.UTC(2026, 0, 1, 0, 0, 0, 999);
const second = new Date(Date.UTC(2026, 0, 1));

function headersFor(secrets: { current: string; previous?: string }) {
  return signDelivery({ eventId: 'evt_1', body, timestampMs, secrets });
}

describe('signDelivery against the reference signers', () => {
  it('produces the exact signatures of @octokit/webhooks-methods and standardwebhooks', async () => {
    const headers = headersFor({ current: secretA });
    expect(headers).toEqual({
      'x-webhook-signature-256': await githubSign(secretA, body),
      'x-webhook-timestamp': String(timestampMs),
      'x-webhook-event-id': 'evt_1',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1767225600',
      'webhook-signature': new Webhook(secretA).sign('evt_1', second, body),
    });
  });

  it('keeps each secret apart: a second secret signs with its own key, not the first one', async () => {
    headersFor({ current: secretA });
    const headers = headersFor({ current: secretB });
    expect(headers['x-webhook-signature-256']).toBe(await githubSign(secretB, body));
    expect(headers['webhook-signature']).toBe(new Webhook(secretB).sign('evt_1', second, body));
  });

  it('puts the newest secret first during a rotation overlap', () => {
    const headers = headersFor({ current: secretB, previous: secretA });
    expect(headers['webhook-signature']).toBe(
      `${new Webhook(secretB).sign('evt_1', second, body)} ${new Webhook(secretA).sign('evt_1', second, body)}`,
    );
  });

  it('takes a secret without the whsec_ prefix as the base64 key itself', () => {
    const plain = secretB.slice('whsec_'.length);
    const headers = headersFor({ current: plain });
    expect(headers['webhook-signature']).toBe(new Webhook(plain).sign('evt_1', second, body));
    expect(headers['webhook-signature']).toBe(new Webhook(secretB).sign('evt_1', second, body));
  });

  it('still signs right after more secrets than its key cache holds (1024)', async () => {
    for (let i = 0; i < 1100; i += 1)
      signDelivery({ eventId: 'evt_1', body, timestampMs, secrets: { current: `whsec_${i}AAAA` } });
    const headers = headersFor({ current: secretA });
    expect(headers['x-webhook-signature-256']).toBe(await githubSign(secretA, body));
    expect(headers['webhook-signature']).toBe(new Webhook(secretA).sign('evt_1', second, body));
  });
});
