import { verify } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { standardAccepts, useWebhookTest, verifyBoth } from '../test/webhooks.js';
import { ATTEMPT_ERRORS } from './attempt-errors.js';

const w = useWebhookTest();
const { time, t, h } = w;

const rotate = async (id: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v0/webhook_subscriptions/${id}/rotate_secret`,
    headers: t.auth(),
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().signingSecret as string;
};

describe('secret rotation', () => {
  it('signs with the old and the new secret for 24 hours, then with the new one only', async () => {
    const sub = await h.subscribe(w.receiver.url);
    const oldSecret = sub.signingSecret;
    const newSecret = await rotate(sub.webhookSubscriptionId);
    const d = h.dispatcher();
    await h.version();
    await d.runOnce();
    const [during] = w.receiver.received;
    if (!during) throw new Error('nothing delivered');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardAccepts(during, newSecret, time.clock())).toBe(true);
    expect(standardAccepts(during, oldSecret, time.clock())).toBe(true);
    // Receivers still on the old secret keep verifying the single-valued spec header.
    await verifyBoth(during, { spec: oldSecret, standard: newSecret }, time.clock());

    time.advance(24 * 3600 * 1000 + 1000);
    await h.version();
    await d.runOnce();
    const after = w.receiver.received[1];
    if (!after) throw new Error('nothing delivered after the overlap');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await verifyBoth(after, { spec: newSecret, standard: newSecret }, time.clock());
    expect(standardAccepts(after, oldSecret, time.clock())).toBe(false);
    expect(await verify(oldSecret, after.body, String(after.headers['x-webhook-signature-256']))).toBe(false);
  });
});

describe('redelivery', () => {
  it('queues one more attempt of the same event, sent with the same event id', async () => {
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    const [done] = await h.deliveries(sub.webhookSubscriptionId);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/deliveries/${done?.deliveryId}/redeliver`,
      headers: t.auth(),
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({
      eventId: done?.eventId,
      attempt: 2,
      status: 'pending',
      responseStatus: null,
    });
    w.receiver.script({ status: 500 });
    await d.runOnce();
    time.advance(10_000);
    await d.runOnce();
    // A manual redelivery is one attempt: its failure schedules no retry.
    const log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log.map((x) => [x.attempt, x.status, x.nextAttemptAt])).toEqual([
      [2, 'failed', null],
      [1, 'succeeded', null],
    ]);
    expect(w.receiver.received.map((r) => r.eventId)).toEqual([done?.eventId, done?.eventId]);
    expect(
      (
        await t.app.inject({
          url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/deliveries?limit=1`,
          headers: t.auth(),
        })
      ).json(),
    ).toMatchObject({ totalCount: 2, hasMore: true });
  });
});

describe('SSRF guard in the dispatcher', () => {
  it('refuses to connect to loopback when insecure mode is off, and records why without the address', async () => {
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    await h.dispatcher({ webhooks: { ...t.config.webhooks, allowInsecure: false } }).runOnce();
    expect(w.receiver.received).toEqual([]);
    const [, first] = await h.deliveries(sub.webhookSubscriptionId);
    expect(first).toMatchObject({ status: 'failed', responseStatus: null });
    expect(first?.error).toBe(ATTEMPT_ERRORS.addressRefused);
    expect(first?.error).not.toContain('127.0.0.1');
  });

  it('does not follow redirects', async () => {
    w.receiver.script({ status: 307, headers: { location: `${w.receiver.url}/elsewhere` } });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    await h.dispatcher().runOnce();
    expect(w.receiver.received).toHaveLength(1);
    const [, first] = await h.deliveries(sub.webhookSubscriptionId);
    expect(first).toMatchObject({ status: 'failed', responseStatus: 307 });
  });
});

describe('secrets', () => {
  it('never appear in dispatcher logs or delivery records', async () => {
    w.receiver.script({ status: 410 }, { status: 500 });
    const lines: string[] = [];
    const log = {
      info: (...args: unknown[]) => lines.push(JSON.stringify(args)),
      warn: (...args: unknown[]) => lines.push(JSON.stringify(args)),
      error: (...args: unknown[]) => lines.push(JSON.stringify(args)),
    };
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher({ log: log as never, pollIntervalMs: 10 });
    d.start();
    await w.receiver.waitFor(1);
    await d.stop();
    expect(lines.join('\n')).toContain(sub.webhookSubscriptionId);
    expect(lines.join('\n')).not.toContain(sub.signingSecret.slice(6));
    const records = JSON.stringify(await h.deliveries(sub.webhookSubscriptionId));
    expect(records).not.toContain(sub.signingSecret.slice(6));
  });
});
