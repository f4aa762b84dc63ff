import { beforeEach, describe, expect, it } from 'vitest';
import {
  attemptsOf,
  deliveriesCounted,
  expectEventsLookedUpByKey,
  queuedEventLeases,
  UNSENT_URL as URL,
  useFanOutTest,
} from '../test/fan-out.js';
import { fanOut } from './fan-out.js';
import { HAND_OVER_BATCH, type HandOverRequest, handOver } from './hand-over.js';

const { time, t, h, deps, given } = useFanOutTest();

function request(limit: number, tenantCap = limit): HandOverRequest {
  return { token: 'idle', leasedUntil: new Date(time.clock().getTime() + 60_000), limit, tenantCap };
}

const attempts = (tenantId = t.tenant.tenantId) => attemptsOf(t, tenantId);
const queued = async (tenantId = t.tenant.tenantId) => (await queuedEventLeases(t, tenantId)).length;

// Every test starts from an empty queue: a hand-over takes the oldest events of any tenant.
beforeEach(async () => {
  while ((await fanOut(t.database.db, deps, 500)) > 0) {}
});

describe("an idle dispatcher's hand-over", () => {
  it('makes the attempts the fan-out makes, for the same subscriptions, and leases them', async () => {
    const { early, exact, late } = await given.typedSubscriptions();

    const handed = await handOver(t.database.db, deps, request(16));
    expect(handed.events).toBe(2);
    expect(handed.attempts).toBe(5);
    expect(handed.claimed).toHaveLength(5);
    for (const { row, target } of handed.claimed) {
      expect(row.leaseToken).toBe('idle');
      expect(row.status).toBe('pending');
      expect(row.id).toMatch(/^whdel_[0-9a-z]{26}$/);
      expect(target.subscription?.id).toBe(row.subscriptionId);
      expect(target.event?.id).toBe(row.eventId);
    }
    const rows = await attempts();
    const events = [...new Set(rows.map((r) => r.event_id))];
    expect(events).toHaveLength(2);
    const bySubscription = (eventId: string) =>
      rows.filter((r) => r.event_id === eventId).map((r) => r.subscription_id);
    const first = [early, exact].map((s) => s.webhookSubscriptionId).sort();
    expect(bySubscription(events[0] as string)).toEqual(first);
    expect(bySubscription(events[1] as string)).toEqual([...first, late.webhookSubscriptionId].sort());
    expect(await queued()).toBe(0);
    // Counted as the fan-out counts: the delivery list's total.
    expect(await deliveriesCounted(t, t.tenant.tenantId, late.webhookSubscriptionId)).toBe(1);
  });

  it('leases no more than the room and each tenant its share; the rest wait unleased', async () => {
    const other = await given.twoTenants(4);
    const handed = await handOver(t.database.db, deps, request(5, 2));
    expect(handed.attempts).toBe(8);
    const byTenant = (tenantId: string) => handed.claimed.filter((c) => c.row.tenantId === tenantId).length;
    expect(byTenant(t.tenant.tenantId)).toBe(2);
    expect(byTenant(other.tenantId)).toBe(2);
    const unleased = [...(await attempts()), ...(await attempts(other.tenantId))].filter(
      (r) => r.lease_token === null,
    );
    expect(unleased).toHaveLength(4);
    expect(unleased.every((r) => r.status === 'pending')).toBe(true);
  });

  it('leaves the events whose attempts exceed the ids it brings queued, for the next fan-out', async () => {
    await given.fill(16, HAND_OVER_BATCH);
    const handed = await handOver(t.database.db, deps, request(64));
    // 32 ids, 16 subscriptions: the first 2 events, whole.
    expect(handed.events).toBe(2);
    expect(handed.attempts).toBe(32);
    expect(await queued()).toBe(HAND_OVER_BATCH - 2);
    expect(await fanOut(t.database.db, deps, 500)).toBe(HAND_OVER_BATCH - 2);
    const rows = await attempts();
    expect(rows).toHaveLength(16 * HAND_OVER_BATCH);
    expect(new Set(rows.map((r) => `${r.event_id} ${r.subscription_id}`)).size).toBe(rows.length);
  });

  it('fans each event out once beside a concurrent fan-out and hand-over', async () => {
    await given.fill(2, 12);
    await Promise.all([
      handOver(t.database.db, deps, request(8)),
      fanOut(t.database.db, deps, 6),
      handOver(t.database.db, deps, request(8)),
    ]);
    while ((await fanOut(t.database.db, deps, 500)) > 0) {}
    const rows = await attempts();
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((r) => `${r.event_id} ${r.subscription_id}`)).size).toBe(24);
    expect(await queued()).toBe(0);
  });

  it('keeps one plan that looks events up by key, however many events are stored', async () => {
    await h.subscribe(URL);
    await h.version();
    await expectEventsLookedUpByKey(t, (db) => handOver(db, deps, request(16)));
  });

  it('never hands an operational event to the subscription it is about', async () => {
    const { tenant, watcher } = await given.operationalEvent('evt_ops');
    const handed = await handOver(t.database.db, deps, request(16));
    expect(handed.claimed.map((c) => c.row.subscriptionId)).toEqual([watcher.webhookSubscriptionId]);
    expect((await attempts(tenant.tenantId)).map((r) => r.subscription_id)).toEqual([
      watcher.webhookSubscriptionId,
    ]);
  });
});
