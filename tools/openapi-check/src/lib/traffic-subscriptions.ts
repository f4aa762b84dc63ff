import { type Driver, str } from './traffic-call.js';

/**
 * The webhook subscriptions: those of the operational events and the two receivers that fail to
 * provoke them (`watchers`, outside `canonical`), then one per version event (`subs`), read,
 * updated and rotated. `hookUrl(type)` is where a subscription for an event type is delivered;
 * `failUrl(status)` a receiver answering `status` to every delivery.
 */
export async function driveSubscriptions(
  { rec, key, call }: Driver,
  hookUrl: (type: string) => string,
  failUrl: (status: number) => string,
): Promise<{ subs: string[]; watchers: string[] }> {
  // The operational events, each to a subscription of its own: a receiver answering 410 Gone
  // gets its subscription disabled, one answering 500 exhausts its retries. (Made first
  // and outside `canonical`: the examples show the version events' subscriptions.)
  const watchers: string[] = [];
  const subscribe = async (body: Record<string, unknown>) => {
    const { body: sub } = await rec.send({
      operation: 'createWebhookSubscription',
      method: 'POST',
      path: '/v0/webhook_subscriptions',
      expect: 201,
      key,
      body,
    });
    watchers.push(str(sub, 'webhookSubscriptionId'));
  };
  for (const type of ['webhook.delivery.exhausted', 'webhook.subscription.disabled']) {
    await subscribe({ url: hookUrl(type), eventTypes: [type], description: `Receives ${type}` });
  }
  for (const status of [410, 500]) {
    await subscribe({
      url: failUrl(status),
      eventTypes: ['page.version.created'],
      description: `Answers ${status}`,
    });
  }
  const subs: string[] = [];
  for (const type of [
    'page.version.created',
    'page.version.published',
    'page.version.cancelled',
    'page.version.archived',
  ]) {
    const sub = await call({
      operation: 'createWebhookSubscription',
      method: 'POST',
      path: '/v0/webhook_subscriptions',
      expect: 201,
      body: { url: hookUrl(type), eventTypes: [type], description: `Receives ${type}` },
    });
    subs.push(str(sub, 'webhookSubscriptionId'));
  }
  const w = `/v0/webhook_subscriptions/${subs[0]}`;
  await call({
    operation: 'listWebhookSubscriptions',
    method: 'GET',
    path: '/v0/webhook_subscriptions',
    expect: 200,
  });
  await call({ operation: 'getWebhookSubscription', method: 'GET', path: w, expect: 200 });
  await call({
    operation: 'updateWebhookSubscription',
    method: 'PATCH',
    path: w,
    expect: 200,
    body: { description: 'Version events of the spring launch', maxDeliveriesPerSecond: 50 },
  });
  await call({
    operation: 'rotateWebhookSubscriptionSecret',
    method: 'POST',
    path: `${w}/rotate_secret`,
    expect: 200,
    body: {},
  });
  return { subs, watchers };
}
