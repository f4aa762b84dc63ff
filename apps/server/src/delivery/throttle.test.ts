import { describe, expect, it } from 'vitest';
import { expectApiError } from '../test/http-cases.js';
import { query } from '../test/sql.js';
import { useWebhookTest } from '../test/webhooks.js';

const w = useWebhookTest();
const { time, t, h } = w;

const received = (tag: string) => w.receiver.received.filter((r) => r.path.endsWith(tag)).length;

async function patch(subscriptionId: string, payload: Record<string, unknown>) {
  return t.app.inject({
    method: 'PATCH',
    url: `/v0/webhook_subscriptions/${subscriptionId}`,
    headers: t.auth(),
    payload,
  });
}

describe('maxDeliveriesPerSecond', () => {
  it('holds a subscription to its rate while another of the tenant drains at once', async () => {
    const slow = await h.subscribe(`${w.receiver.url}?slow`, { maxDeliveriesPerSecond: 10 });
    const fast = await h.subscribe(`${w.receiver.url}?fast`);
    expect(slow.maxDeliveriesPerSecond).toBe(10);
    expect(fast.maxDeliveriesPerSecond).toBeNull();
    const events = 25;
    for (let i = 0; i < events; i += 1) await h.version();
    const dispatcher = h.dispatcher();
    const start = time.clock().getTime();
    await dispatcher.runOnce();
    expect(received('?fast')).toBe(events);
    // A throttle of 10 a second sends one at a time: the rest wait for their turns.
    expect(received('?slow')).toBe(1);

    let steps = 0;
    while (received('?slow') < events && steps < 2 * events) {
      time.advance(100);
      await dispatcher.runOnce();
      steps += 1;
      const elapsedMs = time.clock().getTime() - start;
      expect(received('?slow')).toBeLessThanOrEqual(1 + Math.floor((elapsedMs * 10) / 1000));
    }
    expect(received('?slow')).toBe(events);
    // Each turn came when due: no run found nothing to send while a turn had passed.
    expect(steps).toBeLessThanOrEqual(events - 1);
    expect(time.clock().getTime() - start).toBeGreaterThanOrEqual(((events - 1) * 1000) / 10);
    // Waiting is not failing: one attempt each, every one succeeded.
    const deliveries = await h.deliveries(slow.webhookSubscriptionId);
    expect(deliveries).toHaveLength(events);
    expect(deliveries.every((d) => d.attempt === 1 && d.status === 'succeeded')).toBe(true);
  });

  it('is one rate for every dispatcher', async () => {
    await h.subscribe(`${w.receiver.url}?shared`, { maxDeliveriesPerSecond: 2 });
    for (let i = 0; i < 6; i += 1) await h.version();
    await Promise.all([h.dispatcher().runOnce(), h.dispatcher().runOnce(), h.dispatcher().runOnce()]);
    expect(received('?shared')).toBe(1);
    time.advance(500);
    await Promise.all([h.dispatcher().runOnce(), h.dispatcher().runOnce()]);
    expect(received('?shared')).toBe(2);
  });

  it('lets the waiting attempts go at once when the limit is removed, and takes a new one at once', async () => {
    const sub = await h.subscribe(`${w.receiver.url}?lifted`, { maxDeliveriesPerSecond: 1 });
    for (let i = 0; i < 8; i += 1) await h.version();
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    expect(received('?lifted')).toBe(1);

    // A faster rate applies to the attempts already waiting for a slower turn.
    const faster = await patch(sub.webhookSubscriptionId, { maxDeliveriesPerSecond: 10 });
    expect(faster.statusCode, faster.body).toBe(200);
    expect(faster.json().maxDeliveriesPerSecond).toBe(10);
    await dispatcher.runOnce();
    expect(received('?lifted')).toBe(2);
    time.advance(300);
    await dispatcher.runOnce();
    expect(received('?lifted')).toBeGreaterThanOrEqual(5);
    expect(received('?lifted')).toBeLessThan(8);

    const lifted = await patch(sub.webhookSubscriptionId, { maxDeliveriesPerSecond: null });
    expect(lifted.statusCode, lifted.body).toBe(200);
    expect(lifted.json().maxDeliveriesPerSecond).toBeNull();
    await dispatcher.runOnce();
    expect(received('?lifted')).toBe(8);
    const deliveries = await h.deliveries(sub.webhookSubscriptionId);
    expect(deliveries.every((d) => d.attempt === 1 && d.status === 'succeeded')).toBe(true);
  });

  it('lists an attempt waiting for its turn as pending, due at its turn', async () => {
    const sub = await h.subscribe(`${w.receiver.url}?listed`, { maxDeliveriesPerSecond: 10 });
    for (let i = 0; i < 4; i += 1) await h.version();
    const before = time.clock().getTime();
    await h.dispatcher().runOnce();
    expect(received('?listed')).toBe(1);
    const waiting = (await h.deliveries(sub.webhookSubscriptionId)).filter((d) => d.status === 'pending');
    expect(waiting).toHaveLength(3);
    const dueAt = waiting.map((d) => Date.parse(d.nextAttemptAt ?? '')).sort((a, b) => a - b);
    const first = dueAt[0] ?? 0;
    expect(first).toBeGreaterThanOrEqual(before + 100);
    expect(dueAt).toEqual([first, first + 100, first + 200]);
    const queued = await query<{ id: string; at: Date }>(
      t.database.db,
      'SELECT id, next_attempt_at AS at FROM webhook_delivery_queue WHERE tenant_id = $1 AND subscription_id = $2',
      [t.tenant.tenantId, sub.webhookSubscriptionId],
    );
    expect(new Map(queued.map((q) => [q.id, q.at.getTime()]))).toEqual(
      new Map(waiting.map((d) => [d.deliveryId, Date.parse(d.nextAttemptAt ?? '')])),
    );
  });

  it('accepts whole numbers from 1 to 10,000 only', async () => {
    for (const bad of [0, -1, 10_001, 1.5, '10', true]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v0/webhook_subscriptions',
        headers: t.auth(),
        payload: { url: `${w.receiver.url}?bad`, maxDeliveriesPerSecond: bad },
      });
      expectApiError(res, 'VALIDATION_ERROR');
    }
    const sub = await h.subscribe(`${w.receiver.url}?edge`, { maxDeliveriesPerSecond: 10_000 });
    expect(sub.maxDeliveriesPerSecond).toBe(10_000);
    expectApiError(await patch(sub.webhookSubscriptionId, { maxDeliveriesPerSecond: 0 }), 'VALIDATION_ERROR');
    const one = await patch(sub.webhookSubscriptionId, { maxDeliveriesPerSecond: 1 });
    expect(one.json()).toMatchObject({ maxDeliveriesPerSecond: 1, status: 'active' });
    expect((await h.subscription(sub.webhookSubscriptionId)).maxDeliveriesPerSecond).toBe(1);
  });
});
