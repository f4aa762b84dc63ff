import type { FastifyInstance } from 'fastify';

/** Ids of one tenant's resources, keyed by the path parameter that takes them. */
export type FixtureIds = Record<string, string>;

async function post(app: FastifyInstance, apiKey: string, url: string, payload: object) {
  const res = await app.inject({ method: 'POST', url, payload, headers: { 'x-api-key': apiKey } });
  if (res.statusCode >= 300) throw new Error(`fixture POST ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, string>;
}

/** Creates one of each resource a path can name, through the real routes. */
export async function createFixtures(app: FastifyInstance, apiKey: string, tag: string): Promise<FixtureIds> {
  const page = await post(app, apiKey, '/v0/pages', {
    name: `Page ${tag}`,
    title: 'Welcome',
    pageContext: 'Context',
    brandId: 'brand_1',
    pageType: 'inbound',
  });
  const pageUrl = `/v0/pages/${page.pageId}`;
  const audience = await post(app, apiKey, `${pageUrl}/audiences`, { customName: `Audience ${tag}` });
  const audienceUrl = `${pageUrl}/audiences/${audience.audienceId}`;
  const version = await post(app, apiKey, `${audienceUrl}/versions`, {});
  const message = await post(app, apiKey, `${audienceUrl}/messages`, { role: 'user', content: 'hello' });
  const topic = await post(app, apiKey, '/v0/topics', { title: `Topic ${tag}` });
  const asset = await post(app, apiKey, '/v0/assets', {
    name: `Asset ${tag}`,
    data: { type: 'image', fileId: 'f1' },
  });
  await post(app, apiKey, `/v0/assets/${asset.assetId}/trash`, {});
  const log = await post(app, apiKey, '/v0/account_logs', {
    source: 'fixture',
    domain: `${tag}.example.com`,
    payload: { tag },
  });
  await post(app, apiKey, '/v0/persons', { name: `Person ${tag}`, email: `p@${tag}.example.com` });
  const session = await post(app, apiKey, '/v0/audience_sessions', { audienceId: audience.audienceId });
  await post(app, apiKey, `/v0/audience_sessions/${session.audienceSessionId}/interactions`, {
    componentId: 'c1',
    label: 'Clicked',
  });
  const subscription = await post(app, apiKey, '/v0/webhook_subscriptions', {
    url: 'http://127.0.0.1:9/hook',
  });
  return {
    page_id: page.pageId as string,
    audience_id: audience.audienceId as string,
    version_id: version.versionId as string,
    message_id: (message.messageId ?? message.id) as string,
    topic_id: topic.topicId as string,
    asset_id: asset.assetId as string,
    account_id: log.accountId as string,
    audience_session_id: session.audienceSessionId as string,
    webhook_subscription_id: subscription.webhookSubscriptionId as string,
  };
}

/** Makes an event for the fixtures' subscription (a new version); a dispatcher pass then delivers it. */
export async function createEvent(app: FastifyInstance, apiKey: string, ids: FixtureIds): Promise<void> {
  await post(app, apiKey, `/v0/pages/${ids.page_id}/audiences/${ids.audience_id}/versions`, {});
}

/** Adds the id of a webhook delivery (after {@link createEvent} and a dispatcher pass). */
export async function addDeliveryId(app: FastifyInstance, apiKey: string, ids: FixtureIds): Promise<void> {
  const res = await app.inject({
    url: `/v0/webhook_subscriptions/${ids.webhook_subscription_id}/deliveries`,
    headers: { 'x-api-key': apiKey },
  });
  const [delivery] = (res.json() as { items: Array<{ deliveryId: string }> }).items;
  if (!delivery) throw new Error(`no delivery: ${res.body}`);
  ids.delivery_id = delivery.deliveryId;
}
