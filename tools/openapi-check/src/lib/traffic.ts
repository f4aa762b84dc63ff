import type { Call, Recorder } from './exchanges.js';
import type { Keys } from './processes.js';

type Json = Record<string, unknown>;
/** A string field of a response body (the test fails here when it is missing). */
export const str = (value: unknown, name: string): string => {
  const found = (value as Json | undefined)?.[name];
  if (typeof found !== 'string') throw new Error(`response has no ${name}: ${JSON.stringify(value)}`);
  return found;
};

/** The successful call of each operation, kept to derive its error calls from. */
export type Canonical = Map<string, Call>;

/**
 * Drives every operation of the API but the assets' to success once, in an order that gives each
 * the ids it needs, and keeps each operation's call in `canonical`; returns the webhook
 * subscriptions it made (and, as `watchers`, those of the operational events and the two that
 * fail to provoke them). `hookUrl(type)` is where the subscription for an event type is delivered
 * (the validating proxy, in front of a real receiver); `failUrl(status)` a receiver answering
 * `status` to every delivery.
 */
export async function driveSuccess(
  rec: Recorder,
  keys: Keys,
  canonical: Canonical,
  hookUrl: (type: string) => string,
  failUrl: (status: number) => string,
) {
  const key = keys.owner;
  const call = async (c: Omit<Call, 'key'>) => {
    const full: Call = { ...c, key };
    canonical.set(c.operation, full);
    return (await rec.send(full)).body;
  };
  // Independent resources are driven side by side; each branch in its own order.
  const pagesBranch = async () => {
    const page = await call({
      operation: 'createPage',
      method: 'POST',
      path: '/v0/pages',
      expect: 201,
      body: {
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        pageType: 'inbound',
      },
    });
    const p = `/v0/pages/${str(page, 'pageId')}`;
    await call({ operation: 'getPage', method: 'GET', path: p, expect: 200 });
    await call({ operation: 'listPages', method: 'GET', path: '/v0/pages?limit=5', expect: 200 });

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

    const audience = await call({
      operation: 'createAudience',
      method: 'POST',
      path: `${p}/audiences`,
      expect: 201,
      body: { customName: 'Logistics leads', supplementaryContext: 'Visitors from logistics companies.' },
    });
    const a = `${p}/audiences/${str(audience, 'audienceId')}`;
    await call({ operation: 'getAudience', method: 'GET', path: a, expect: 200 });
    await call({ operation: 'listAudiences', method: 'GET', path: `${p}/audiences`, expect: 200 });
    const v1 = await call({
      operation: 'createAudienceVersion',
      method: 'POST',
      path: `${a}/versions`,
      expect: 201,
      body: {},
    });
    await call({
      operation: 'publishAudienceVersion',
      method: 'POST',
      path: `${a}/versions/${str(v1, 'versionId')}/publish`,
      expect: 200,
      body: {},
    });
    const v2 = await rec.send({
      operation: 'createAudienceVersion',
      method: 'POST',
      path: `${a}/versions`,
      expect: 201,
      key,
      body: { supplementaryContext: 'Freight forwarders.' },
    });
    await rec.send({
      operation: 'publishAudienceVersion',
      method: 'POST',
      path: `${a}/versions/${str(v2.body, 'versionId')}/publish`,
      expect: 200,
      key,
      body: {},
    });
    const v3 = await rec.send({
      operation: 'createAudienceVersion',
      method: 'POST',
      path: `${a}/versions`,
      expect: 201,
      key,
      body: {},
    });
    const v = `${a}/versions/${str(v3.body, 'versionId')}`;
    await call({ operation: 'getAudienceVersion', method: 'GET', path: v, expect: 200 });
    await call({
      operation: 'cancelAudienceVersion',
      method: 'POST',
      path: `${v}/cancel`,
      expect: 200,
      body: {},
    });

    await rec.send({
      operation: 'createAudienceMessage',
      method: 'POST',
      path: `${a}/messages`,
      expect: 201,
      key,
      body: { role: 'user', content: 'Focus the page on freight forwarders.' },
    });
    // The canonical message (the example) is the one with changes: it is the one that restores.
    const answer = await call({
      operation: 'createAudienceMessage',
      method: 'POST',
      path: `${a}/messages`,
      expect: 201,
      body: {
        role: 'assistant',
        content: 'I updated the context.',
        changes: [
          {
            field: 'supplementaryContext',
            newValue: 'Freight forwarders evaluating Acme.',
            status: 'applied',
          },
        ],
      },
    });
    const m = `${a}/messages/${str(answer, 'messageId')}`;
    await call({ operation: 'getAudienceMessages', method: 'GET', path: `${a}/messages`, expect: 200 });
    await call({
      operation: 'restoreAudienceMessage',
      method: 'POST',
      path: `${m}/restore`,
      expect: 200,
      body: {},
    });
    await call({
      operation: 'publishAudienceMessage',
      method: 'POST',
      path: `${m}/publish`,
      expect: 200,
      body: {},
    });

    const session = await call({
      operation: 'createAudienceSession',
      method: 'POST',
      path: '/v0/audience_sessions',
      expect: 201,
      body: { audienceId: str(audience, 'audienceId') },
    });
    const s = `/v0/audience_sessions/${str(session, 'audienceSessionId')}/interactions`;
    await call({
      operation: 'createAudienceSessionInteraction',
      method: 'POST',
      path: s,
      expect: 201,
      body: { componentId: 'hero-cta', label: 'Book a demo' },
    });
    await call({ operation: 'getAudienceSessionInteractions', method: 'GET', path: s, expect: 200 });

    await call({ operation: 'archiveAudience', method: 'POST', path: `${a}/archive`, expect: 200, body: {} });
    await call({ operation: 'restoreAudience', method: 'POST', path: `${a}/restore`, expect: 200, body: {} });
    await call({ operation: 'archivePage', method: 'POST', path: `${p}/archive`, expect: 200, body: {} });
    await call({ operation: 'restorePage', method: 'POST', path: `${p}/restore`, expect: 200, body: {} });
    await call({ operation: 'deletePage', method: 'DELETE', path: p, expect: 200 });
    await rec.send({ operation: 'deletePage', method: 'DELETE', path: p, expect: 409, key });
    await rec.send({
      operation: 'restorePage',
      method: 'POST',
      path: `${p}/restore`,
      expect: 200,
      key,
      body: {},
    });

    return { subs, watchers };
  };
  const personsBranch = async () => {
    const person = await call({
      operation: 'createPerson',
      method: 'POST',
      path: '/v0/persons',
      expect: 201,
      body: { name: 'Jane Doe', email: `jane.${Date.now()}@example.com` },
    });
    const personLog = await call({
      operation: 'createPersonLog',
      method: 'POST',
      path: '/v0/person_logs',
      expect: 201,
      body: {
        personId: str(person, 'personId'),
        source: 'crm',
        type: 'call-logged',
        payload: { minutes: 12 },
      },
    });
    await call({
      operation: 'deletePersonLog',
      method: 'DELETE',
      path: `/v0/person_logs/${str(personLog, 'personLogId')}`,
      expect: 200,
    });
    const accountLogBody = {
      source: 'crm',
      type: 'deal-won',
      payload: { plan: 'team' },
      domain: 'acme.example',
      name: 'Acme',
      idempotencyKey: `deal-${Date.now()}`,
    };
    const accountLog = await call({
      operation: 'createAccountLog',
      method: 'POST',
      path: '/v0/account_logs',
      expect: 201,
      body: accountLogBody,
    });
    await rec.send({
      operation: 'createAccountLog',
      method: 'POST',
      path: '/v0/account_logs',
      expect: 200,
      key,
      body: accountLogBody,
    });
    const account = `/v0/accounts/${str(accountLog, 'accountId')}`;
    await call({ operation: 'listAccounts', method: 'GET', path: '/v0/accounts', expect: 200 });
    await call({ operation: 'getAccount', method: 'GET', path: account, expect: 200 });
    await call({ operation: 'listAccountActivity', method: 'GET', path: `${account}/activity`, expect: 200 });
    await call({
      operation: 'deleteAccountLog',
      method: 'DELETE',
      path: `/v0/account_logs/${str(accountLog, 'accountLogId')}`,
      expect: 200,
    });
  };
  const topicsBranch = async () => {
    const topic = await call({
      operation: 'createTopic',
      method: 'POST',
      path: '/v0/topics',
      expect: 201,
      body: { title: 'Pricing', sortOrder: 1 },
    });
    const t = `/v0/topics/${str(topic, 'topicId')}`;
    await call({ operation: 'getTopic', method: 'GET', path: t, expect: 200 });
    await call({ operation: 'listTopics', method: 'GET', path: '/v0/topics', expect: 200 });
    await call({
      operation: 'updateTopic',
      method: 'PATCH',
      path: t,
      expect: 200,
      body: { title: 'Pricing and plans' },
    });
  };
  const [{ subs, watchers }] = await Promise.all([pagesBranch(), personsBranch(), topicsBranch()]);
  return { canonical, subs, watchers };
}
