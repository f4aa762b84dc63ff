import { type CustomerApiClient, createClient, type WebhookDeliveryBody } from '@customer-api/client';
import { type RunningServer, startServer } from '@customer-api/example-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from './receiver.js';

describe('webhook receiver against a real server', () => {
  let server: RunningServer;
  let client: CustomerApiClient;
  let receiver: Receiver;
  const events: WebhookDeliveryBody[] = [];
  let secret = '';

  beforeAll(async () => {
    // Loopback http targets need insecure mode; a short retry schedule keeps retries quick.
    server = await startServer({ WEBHOOKS_ALLOW_INSECURE: '1', WEBHOOKS_RETRY_SCHEDULE: '1,1,1' });
    client = createClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    receiver = await startReceiver({
      secret: () => secret,
      onEvent: (delivery) => void events.push(delivery),
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await client?.close();
    await server?.stop();
  });

  it('verifies deliveries, handles each event once, and rejects forgeries', async () => {
    const subscription = await client.createWebhookSubscription({
      body: { url: receiver.url, eventTypes: ['page.version.created', 'page.version.published'] },
    });
    secret = subscription.signingSecret;
    const { pageId } = await client.createPage({
      body: { name: 'Hooks', title: 'Hooks', pageContext: 'c', brandId: 'brand_1', pageType: 'inbound' },
    });
    const { audienceId } = await client.createAudience({ params: { page_id: pageId }, body: {} });
    const version = await client.createAudienceVersion({
      params: { page_id: pageId, audience_id: audienceId },
      body: {},
    });
    await client.publishAudienceVersion({
      params: { page_id: pageId, audience_id: audienceId, version_id: version.versionId },
      body: {},
    });
    await expect.poll(() => events.length, { timeout: 30_000, interval: 200 }).toBe(2);
    expect(events.map((e) => e.payload.type).sort()).toEqual([
      'page.version.created',
      'page.version.published',
    ]);
    expect(events.every((e) => 'versionId' in e.payload && e.payload.versionId === version.versionId)).toBe(
      true,
    );

    // A redelivery of a handled event arrives, verifies, and is not handled again.
    const params = { webhook_subscription_id: subscription.webhookSubscriptionId };
    const [delivery] = (await client.listWebhookDeliveries({ params })).items;
    if (!delivery) throw new Error('no delivery listed');
    const before = receiver.received;
    await client.redeliverWebhookDelivery({
      params: { ...params, delivery_id: delivery.deliveryId },
      body: {},
    });
    await expect.poll(() => receiver.received, { timeout: 30_000, interval: 200 }).toBe(before + 1);
    expect(events).toHaveLength(2);
    expect(receiver.handled).toEqual(new Set(events.map((e) => e.eventId)));

    // A body signed with another secret is refused.
    const forged = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-signature-256': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify({
        timestamp: new Date().toISOString(),
        eventId: 'evt_forged',
        payload: events[0]?.payload,
      }),
    });
    expect(forged.status).toBe(401);
    expect(events).toHaveLength(2);
  });
});
