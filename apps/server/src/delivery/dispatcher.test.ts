import { WebhookDeliveryBodySchema } from '@customer-api/contract';
import { describe, expect, it } from 'vitest';
import { query } from '../test/sql.js';
import { useWebhookTest, verifyBoth } from '../test/webhooks.js';

const w = useWebhookTest();
const { time, t, h } = w;

describe('delivery', () => {
  it('delivers one page.version.created per new version, verified by both third-party verifiers', async () => {
    const sub = await h.subscribe(w.receiver.url);
    const { page, audience, version } = await h.version();
    await h.dispatcher().runOnce();
    const [got, ...more] = w.receiver.received;
    expect(more).toEqual([]);
    if (!got) throw new Error('nothing delivered');
    await verifyBoth(got, { spec: sub.signingSecret, standard: sub.signingSecret }, time.clock());
    const body = WebhookDeliveryBodySchema.parse(JSON.parse(got.body));
    expect(body.payload).toEqual({
      type: 'page.version.created',
      pageId: page.pageId,
      audienceId: audience.audienceId,
      versionId: version.versionId,
      status: version.status,
      createdAt: version.createdAt,
    });
    expect(body.eventId).toMatch(/^evt_[0-9a-z]{26}$/);
    expect(got.headers['x-webhook-event-id']).toBe(body.eventId);
    expect(got.headers['webhook-id']).toBe(body.eventId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(got.headers['x-webhook-timestamp']) - time.clock().getTime())).toBeLessThan(5000);
    expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([
      expect.objectContaining({
        eventId: body.eventId,
        eventType: 'page.version.created',
        attempt: 1,
        status: 'succeeded',
        responseStatus: 200,
        error: null,
        nextAttemptAt: null,
        durationMs: expect.any(Number),
      }),
    ]);
    // Fanned out and delivered once: running again sends nothing.
    await h.dispatcher().runOnce();
    expect(w.receiver.received).toHaveLength(1);
  });

  it('sends only the event types a subscription asked for, to subscribers that existed at the time', async () => {
    const onlyPublished = await h.subscribe(w.receiver.url, { eventTypes: ['page.version.published'] });
    const everything = await h.subscribe(w.receiver.url, { eventTypes: ['page.version.*'] });
    const { page, audience, version } = await h.version();
    const publish = await t.app.inject({
      method: 'POST',
      url: `/v0/pages/${page.pageId}/audiences/${audience.audienceId}/versions/${version.versionId}/publish`,
      headers: t.auth(),
      payload: {},
    });
    expect(publish.statusCode, publish.body).toBe(200);
    const other = await t.seed.tenant();
    const otherPage = await t.seed.page(other);
    await t.seed.version(
      other,
      otherPage.pageId,
      (await t.seed.audience(other, otherPage.pageId)).audienceId,
    );
    await h.dispatcher().runOnce();
    const late = await h.subscribe(w.receiver.url);
    await h.dispatcher().runOnce();
    const types = (id: string) => h.deliveries(id).then((ds) => ds.map((d) => d.eventType).sort());
    expect(await types(onlyPublished.webhookSubscriptionId)).toEqual(['page.version.published']);
    expect(await types(everything.webhookSubscriptionId)).toEqual([
      'page.version.created',
      'page.version.published',
    ]);
    expect(await types(late.webhookSubscriptionId)).toEqual([]);
    expect(w.receiver.received).toHaveLength(3);
  });
});

describe('the delivery log', () => {
  it('keeps the response of every attempt, truncated to 1,024 characters', async () => {
    w.receiver.script({ status: 500, body: 'x'.repeat(5000) });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    await h.dispatcher().runOnce();
    const rows = await query(t.database.db, 'SELECT * FROM webhook_deliveries WHERE subscription_id = $1', [
      sub.webhookSubscriptionId,
    ]);
    const first = rows.find((r) => r.attempt === 1);
    expect(first).toMatchObject({ status: 'failed', response_status: 500, response_body: 'x'.repeat(1024) });
    expect(first?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(first?.attempted_at).toBeInstanceOf(Date);
  });
});

describe('retries', () => {
  it('retries after 500s on the configured schedule with jitter, then succeeds', async () => {
    w.receiver.script({ status: 500, body: 'boom' }, { status: 502 });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    const recordedBy = time.clock().getTime();
    let log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log).toHaveLength(2);
    const [next, first] = log;
    expect(first).toMatchObject({
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      error: 'Receiver answered HTTP 500',
    });
    expect(next).toMatchObject({ attempt: 2, status: 'pending', nextAttemptAt: first?.nextAttemptAt });
    // 1 s ± 20 %, counted from the failure: at least 800 ms after the attempt began, at most
    // 1200 ms after the failure was recorded (however long the POST took on a loaded machine).
    const nextAt = Date.parse(first?.nextAttemptAt ?? '');
    expect(nextAt - Date.parse(first?.createdAt ?? '')).toBeGreaterThanOrEqual(800);
    expect(nextAt - recordedBy).toBeLessThanOrEqual(1200);
    // Not due yet: nothing is sent before the schedule says so.
    await d.runOnce();
    expect(w.receiver.received).toHaveLength(1);
    time.advance(1300);
    await d.runOnce();
    time.advance(2500);
    await d.runOnce();
    expect(w.receiver.received).toHaveLength(3);
    expect(new Set(w.receiver.received.map((r) => r.eventId)).size).toBe(1);
    log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log.map((x) => [x.attempt, x.status, x.responseStatus])).toEqual([
      [3, 'succeeded', 200],
      [2, 'failed', 502],
      [1, 'failed', 500],
    ]);
  });

  it('retries after a timeout', async () => {
    w.receiver.script({ delayMs: 3000 });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    time.advance(1300);
    await d.runOnce();
    const log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log.map((x) => [x.attempt, x.status, x.responseStatus, x.error])).toEqual([
      [2, 'succeeded', 200, null],
      [1, 'failed', null, 'Timed out after 1000 ms'],
    ]);
    expect(log[1]?.durationMs).toBeGreaterThanOrEqual(950);
    expect(log[1]?.durationMs).toBeLessThan(3000);
  });

  it('waits at least as long as Retry-After asks', async () => {
    w.receiver.script({ status: 503, headers: { 'retry-after': '30' } });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    const [, first] = await h.deliveries(sub.webhookSubscriptionId);
    expect(
      Date.parse(first?.nextAttemptAt ?? '') - Date.parse(first?.createdAt ?? ''),
    ).toBeGreaterThanOrEqual(30_000);
    time.advance(5000);
    await d.runOnce();
    expect(w.receiver.received).toHaveLength(1);
    time.advance(26_000);
    await d.runOnce();
    expect(w.receiver.received).toHaveLength(2);
  });

  it('gives up when the schedule is exhausted; recovery queues the event once more', async () => {
    w.receiver.fallback = { status: 500 };
    const sub = await h.subscribe(w.receiver.url);
    const since = time.clock().toISOString();
    await h.version();
    const d = h.dispatcher();
    for (const wait of [0, 1300, 2500, 5000, 10_000]) {
      time.advance(wait);
      await d.runOnce();
    }
    let log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log.map((x) => x.attempt)).toEqual([4, 3, 2, 1]);
    expect(log.every((x) => x.status === 'failed')).toBe(true);
    expect(log[0]?.nextAttemptAt).toBeNull();
    w.receiver.fallback = { status: 204 };
    const url = `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/recover`;
    const res = await t.app.inject({ method: 'POST', url, headers: t.auth(), payload: { since } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ queued: 1 });
    await d.runOnce();
    log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log[0]).toMatchObject({ attempt: 5, status: 'succeeded', responseStatus: 204 });
    // Each attempt is counted where it is queued: the first, its three retries, the recovered one.
    const counted = await t.app.inject({
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/deliveries?limit=1`,
      headers: t.auth(),
    });
    expect(counted.json()).toMatchObject({ totalCount: 5, hasMore: true });
    // Recovered events are not queued twice.
    const again = await t.app.inject({ method: 'POST', url, headers: t.auth(), payload: { since } });
    expect(again.json()).toEqual({ queued: 0 });
    expect(w.receiver.received).toHaveLength(5);
  });
});

describe('disabling', () => {
  it('disables a subscription on 410 Gone, without retries', async () => {
    w.receiver.script({ status: 410 });
    const sub = await h.subscribe(w.receiver.url);
    await h.version();
    const d = h.dispatcher();
    await d.runOnce();
    expect(await h.subscription(sub.webhookSubscriptionId)).toMatchObject({
      status: 'disabled',
      disabledReason: 'The receiver answered 410 Gone.',
    });
    await h.version();
    time.advance(10_000);
    await d.runOnce();
    const log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log).toEqual([
      expect.objectContaining({ status: 'failed', responseStatus: 410, nextAttemptAt: null }),
    ]);
    expect(w.receiver.received).toHaveLength(1);
    const redeliver = await t.app.inject({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/deliveries/${log[0]?.deliveryId}/redeliver`,
      headers: t.auth(),
      payload: {},
    });
    expect(redeliver.statusCode).toBe(409);
  });

  it('disables a subscription after five days of continuous failure, and a success resets the count', async () => {
    w.receiver.fallback = { status: 500 };
    const sub = await h.subscribe(w.receiver.url);
    const d = h.dispatcher();
    const day = 24 * 3600 * 1000;
    await h.version();
    await d.runOnce();
    time.advance(3 * day);
    w.receiver.script({ status: 200 });
    await d.runOnce();
    time.advance(1 * day);
    await h.version();
    await d.runOnce();
    time.advance(4 * day + 3600_000);
    await h.version();
    await d.runOnce();
    expect((await h.subscription(sub.webhookSubscriptionId)).status).toBe('active');
    time.advance(day);
    await h.version();
    await d.runOnce();
    expect(await h.subscription(sub.webhookSubscriptionId)).toMatchObject({
      status: 'disabled',
      disabledReason: 'Every delivery failed for 5 days.',
    });
    const pending = (await h.deliveries(sub.webhookSubscriptionId)).filter((x) => x.status === 'pending');
    expect(pending).toEqual([]);
  });
});
