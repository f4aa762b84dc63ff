import type { Call, Recorder } from './exchanges.js';
import type { Keys } from './processes.js';
import { driveAudiences } from './traffic-audiences.js';
import { type Canonical, type Driver, str } from './traffic-call.js';
import { drivePersons } from './traffic-persons.js';
import { driveSubscriptions } from './traffic-subscriptions.js';

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
  const driver: Driver = { rec, key, call };
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

    const { subs, watchers } = await driveSubscriptions(driver, hookUrl, failUrl);
    await driveAudiences(driver, p);
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
  const [{ subs, watchers }] = await Promise.all([pagesBranch(), drivePersons(driver), topicsBranch()]);
  return { canonical, subs, watchers };
}
