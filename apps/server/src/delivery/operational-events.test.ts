import { WebhookDeliveryBodySchema } from '@customer-api/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { query } from '../test/sql.js';
import { startReceiver, type TestReceiver } from '../test/webhook-receiver.js';
import { useWebhookTest } from '../test/webhooks.js';

const w = useWebhookTest();
const { time, t, h } = w;

const failing: TestReceiver[] = [];
afterEach(async () => {
  await h.stopAll();
  await Promise.all(failing.splice(0).map((r) => r.close()));
});

/** A receiver that answers every request with `status`. */
async function answering(status: number): Promise<TestReceiver> {
  const receiver = await startReceiver();
  receiver.fallback = { status };
  failing.push(receiver);
  return receiver;
}

/** What `w.receiver` got under `tag`, as parsed delivery bodies. */
const bodiesAt = (tag: string) =>
  w.receiver.received
    .filter((r) => r.path.endsWith(tag))
    .map((r) => WebhookDeliveryBodySchema.parse(JSON.parse(r.body)));

/** Runs the dispatcher, stepping the clock past each retry, until nothing is pending. */
async function drain(): Promise<void> {
  const dispatcher = h.dispatcher();
  for (let i = 0; i < 20; i += 1) {
    await dispatcher.runOnce();
    const [row] = await query<{ n: number }>(
      t.database.db,
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'pending'",
      [t.tenant.tenantId],
    );
    const [queued] = await query<{ n: number }>(
      t.database.db,
      'SELECT count(*)::int AS n FROM webhook_event_queue WHERE tenant_id = $1',
      [t.tenant.tenantId],
    );
    if (row?.n === 0 && queued?.n === 0) return;
    time.advance(5_000);
  }
  throw new Error('deliveries still pending after 20 runs');
}

const eventsOf = async (type: string) =>
  query<{ subject: string }>(
    t.database.db,
    'SELECT subject_subscription_id AS subject FROM webhook_events WHERE tenant_id = $1 AND type = $2',
    [t.tenant.tenantId, type],
  );

describe('operational events', () => {
  it('reports an exhausted delivery to the subscriptions that name it, never to its subject', async () => {
    const down = await answering(500);
    const subject = await h.subscribe(`${down.url}?subject`, {
      eventTypes: ['page.version.created', 'webhook.*'],
    });
    const named = await h.subscribe(`${w.receiver.url}?named`, {
      eventTypes: ['webhook.delivery.exhausted'],
    });
    await h.subscribe(`${w.receiver.url}?wildcard`, { eventTypes: ['webhook.*'] });
    await h.subscribe(`${w.receiver.url}?default`);
    const { version } = await h.version();
    await drain();

    // Four attempts (the schedule 1,2,4 in tests), then one event about the subject.
    const attempts = await h.deliveries(subject.webhookSubscriptionId);
    expect(attempts).toHaveLength(4);
    expect(attempts.every((a) => a.status === 'failed')).toBe(true);
    const last = attempts.find((a) => a.attempt === 4);
    const [versionEvent] = bodiesAt('?default');
    expect(versionEvent?.payload.type).toBe('page.version.created');
    for (const tag of ['?named', '?wildcard']) {
      const bodies = bodiesAt(tag);
      expect(bodies.map((b) => b.payload)).toEqual([
        {
          type: 'webhook.delivery.exhausted',
          webhookSubscriptionId: subject.webhookSubscriptionId,
          eventId: versionEvent?.eventId,
          eventType: 'page.version.created',
          deliveryId: last?.deliveryId,
          attempts: 4,
          responseStatus: 500,
          error: 'Receiver answered HTTP 500',
        },
      ]);
    }
    // The default subscription (page.version.*) got the version event only; the subject asked for
    // webhook.* but is what the event is about.
    expect(bodiesAt('?default')).toHaveLength(1);
    expect(down.received.map((r) => JSON.parse(r.body).payload.type)).toEqual(
      Array(4).fill('page.version.created'),
    );
    expect((await h.deliveries(named.webhookSubscriptionId)).map((d) => d.eventType)).toEqual([
      'webhook.delivery.exhausted',
    ]);
    expect(version.versionId).toBe(
      versionEvent?.payload.type === 'page.version.created' && versionEvent.payload.versionId,
    );
  });

  it('reports a subscription the server disabled, once, and not one the tenant disabled', async () => {
    const gone = await answering(410);
    const subject = await h.subscribe(`${gone.url}?gone`);
    await h.subscribe(`${w.receiver.url}?watch`, { eventTypes: ['webhook.subscription.disabled'] });
    const paused = await h.subscribe(`${w.receiver.url}?paused`);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v0/webhook_subscriptions/${paused.webhookSubscriptionId}`,
      headers: t.auth(),
      payload: { status: 'disabled' },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    await h.version();
    await h.version();
    await drain();

    expect((await h.subscription(subject.webhookSubscriptionId)).status).toBe('disabled');
    expect(bodiesAt('?watch').map((b) => b.payload)).toEqual([
      {
        type: 'webhook.subscription.disabled',
        webhookSubscriptionId: subject.webhookSubscriptionId,
        url: `${gone.url}?gone`,
        disabledReason: 'The receiver answered 410 Gone.',
      },
    ]);
    expect(await eventsOf('webhook.subscription.disabled')).toEqual([
      { subject: subject.webhookSubscriptionId },
    ]);
  });

  it('reports nothing about the deliveries of operational events, so no loop can form', async () => {
    const down = await answering(500);
    // Each watches the other's failures, and both fail every delivery.
    const a = await h.subscribe(`${down.url}?a`, { eventTypes: ['page.version.created', 'webhook.*'] });
    const b = await h.subscribe(`${down.url}?b`, { eventTypes: ['webhook.*'] });
    await h.version();
    await drain();

    // A's version event exhausted: one event about A, sent to B, whose four attempts failed too;
    // that exhaustion of an operational event is not reported again.
    expect(await eventsOf('webhook.delivery.exhausted')).toEqual([{ subject: a.webhookSubscriptionId }]);
    const toB = await h.deliveries(b.webhookSubscriptionId);
    expect(toB).toHaveLength(4);
    expect(toB.every((d) => d.eventType === 'webhook.delivery.exhausted' && d.status === 'failed')).toBe(
      true,
    );
    expect(
      (await h.deliveries(a.webhookSubscriptionId)).every((d) => d.eventType === 'page.version.created'),
    ).toBe(true);
  });
});
