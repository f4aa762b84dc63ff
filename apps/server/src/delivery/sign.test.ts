import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret, signDelivery, specSignature } from './sign.js';

const body = JSON.stringify({
  timestamp: '2026-01-01T00:00:00.000Z',
  eventId: 'evt_1',
  payload: { type: 'page.version.created' },
});

function signNow(secrets: { current: string; previous?: string }) {
  const timestampMs = Date.now();
  return { timestampMs, headers: signDelivery({ eventId: 'evt_1', body, timestampMs, secrets }) };
}

describe('signing secrets', () => {
  it('are whsec_ followed by 32 random bytes in base64, different every time', () => {
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(a);
  });
});

describe('signDelivery', () => {
  it('passes the GitHub-style sha256= verifier keyed by the whole secret', async () => {
    const secret = generateSigningSecret();
    const { headers } = signNow({ current: secret });
    expect(headers['x-webhook-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(secret, body, headers['x-webhook-signature-256'] ?? '')).toBe(true);
    expect(await verify(generateSigningSecret(), body, headers['x-webhook-signature-256'] ?? '')).toBe(false);
    expect(await verify(secret, `${body} `, headers['x-webhook-signature-256'] ?? '')).toBe(false);
  });

  it('passes the Standard Webhooks verifier, with a signed timestamp in seconds', () => {
    const secret = generateSigningSecret();
    const { headers, timestampMs } = signNow({ current: secret });
    expect(headers['x-webhook-timestamp']).toBe(String(timestampMs));
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestampMs / 1000)));
    expect(headers['x-webhook-event-id']).toBe('evt_1');
    expect(headers['webhook-id']).toBe('evt_1');
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ eventId: 'evt_1' });
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
    const replayed = { ...headers, 'webhook-timestamp': String(Math.floor(timestampMs / 1000) + 1) };
    expect(() => new Webhook(secret).verify(body, replayed)).toThrow();
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const previous = generateSigningSecret();
    const current = generateSigningSecret();
    const { headers } = signNow({ current, previous });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
    // The single-valued spec header stays on the old secret until the overlap ends.
    expect(await verify(previous, body, headers['x-webhook-signature-256'] ?? '')).toBe(true);
    expect(headers['x-webhook-signature-256']).not.toBe(specSignature(current, body));
  });
});
