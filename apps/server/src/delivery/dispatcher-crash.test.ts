import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db/database.js';
import { useTestApp } from '../test/test-app.js';
import { startReceiver, type TestReceiver } from '../test/webhook-receiver.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import type { WebhookDispatcher } from './dispatcher.js';

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });
const h = webhookHelpers(t, time.clock);
let receiver: TestReceiver;

/** How long a killed dispatcher's claim blocks the attempt: the send timeout plus the margin. */
const LEASE_MS = Number(WEBHOOK_TEST_ENV.WEBHOOKS_TIMEOUT_MS) + 60_000;

beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await h.stopAll();
  await receiver.close();
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a running dispatcher', () => {
  // Latency is measured by bench/webhooks (speed targets are not timed tests on a shared machine).
  it('delivers a new version event on its own, polling in the background', async () => {
    await h.subscribe(receiver.url);
    h.dispatcher({ pollIntervalMs: 100 }).start();
    await h.version();
    const [got] = await receiver.waitFor(1, 5000);
    expect(JSON.parse(got?.body ?? '{}').payload.type).toBe('page.version.created');
  });

  it('finishes in-flight deliveries when stopped (SIGTERM)', async () => {
    receiver.script({ delayMs: 200 });
    const sub = await h.subscribe(receiver.url);
    const d = h.dispatcher({ pollIntervalMs: 20 });
    d.start();
    await h.version();
    await receiver.waitFor(1);
    await d.stop();
    expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([
      expect.objectContaining({ status: 'succeeded', attempt: 1 }),
    ]);
  });
});

describe('at-least-once across a dispatcher killed mid-delivery', () => {
  const moments = {
    'while waiting for the answer': (kill: () => Promise<void>) => ({
      hang: true,
      before: () => void kill(),
    }),
    'after the receiver processed it, before recording': (kill: () => Promise<void>) => ({
      status: 200,
      before: kill,
    }),
  };
  for (const [moment, reply] of Object.entries(moments)) {
    it(`re-sends the attempt when killed ${moment}`, async () => {
      const sub = await h.subscribe(receiver.url);
      await h.version();
      const first = h.dispatcher();
      receiver.script(reply(() => first.kill()));
      await first.runOnce();
      expect(receiver.received).toHaveLength(1);
      const [pending] = await h.deliveries(sub.webhookSubscriptionId);
      expect(pending).toMatchObject({ status: 'pending', attempt: 1 });

      // The killed dispatcher's lease keeps others off the attempt until it runs out.
      const second = h.dispatcher();
      expect(await second.runOnce()).toBe(0);
      time.advance(LEASE_MS + 1);
      await second.runOnce();

      expect(receiver.received.map((r) => r.eventId)).toEqual([pending?.eventId, pending?.eventId]);
      expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([
        expect.objectContaining({ deliveryId: pending?.deliveryId, status: 'succeeded', attempt: 1 }),
      ]);
    });
  }

  it('loses no event when killed before fan-out or between fan-out and sending', async () => {
    const sub = await h.subscribe(receiver.url);
    await h.version();
    const killed = h.dispatcher();
    await killed.kill();
    await h.version();
    await h.dispatcher().runOnce();
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((r) => r.eventId)).size).toBe(2);
    expect((await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status)).toEqual([
      'succeeded',
      'succeeded',
    ]);
  });
});

describe('two dispatchers on one database', () => {
  it('send every attempt exactly once between them, working at the same time', async () => {
    const EVENTS = 30;
    // Every answer waits until five requests are open at once, which one dispatcher (4 slots) can
    // never make alone: both must be sending at the same time, however the machine schedules
    // their starts. Without the overlap the answers go out after 20 s and the last check fails.
    const overlap = receiver.waitFor(5, 20_000).catch(() => undefined);
    receiver.fallback = { status: 200, until: overlap };
    const sub = await h.subscribe(receiver.url);
    const page = await t.seed.page(t.tenant);
    const audience = await t.seed.audience(t.tenant, page.pageId);
    for (let i = 0; i < EVENTS; i += 1) await t.seed.version(t.tenant, page.pageId, audience.audienceId);
    // On PostgreSQL each dispatcher has its own connection pool, like separate processes.
    const own: Database[] = [];
    const dispatchers: WebhookDispatcher[] = [];
    for (let i = 0; i < 2; i += 1) {
      const database = t.config.databaseUrl
        ? await openDatabase({ databaseUrl: t.config.databaseUrl })
        : t.database;
      if (database !== t.database) own.push(database);
      // Longer than the receiver's hold: a slow, shared test machine must not turn into retries here.
      const webhooks = { ...t.config.webhooks, timeoutMs: 30_000 };
      dispatchers.push(h.dispatcher({ db: database.db, webhooks, concurrency: 4, pollIntervalMs: 10 }));
    }
    try {
      for (const d of dispatchers) d.start();
      await waitUntil(async () => {
        const log = await h.deliveries(sub.webhookSubscriptionId);
        return log.filter((d) => d.status === 'succeeded').length >= EVENTS;
      });
      await Promise.all(dispatchers.map((d) => d.stop()));
    } finally {
      await Promise.all(own.map((d) => d.close()));
    }
    const log = await h.deliveries(sub.webhookSubscriptionId);
    expect(log.map((d) => [d.attempt, d.status])).toEqual(Array(EVENTS).fill([1, 'succeeded']));
    const ids = receiver.received.map((r) => r.eventId);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    // One dispatcher alone never has more than 4 requests open: both were sending at once.
    expect(receiver.maxInFlight).toBeGreaterThan(4);
  });
});
