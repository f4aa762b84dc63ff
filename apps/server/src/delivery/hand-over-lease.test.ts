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
import { HAND_OVER_BATCH, type HandOverRequest } from './hand-over.js';
import { leaseHandOver, writeHandOver } from './hand-over-lease.js';

const { time, t, h, deps, given } = useFanOutTest();
const LEASE_MS = 60_000;

function request(limit: number, tenantCap = limit, token = 'idle'): HandOverRequest {
  return { token, leasedUntil: new Date(time.clock().getTime() + LEASE_MS), limit, tenantCap };
}

const attempts = (tenantId = t.tenant.tenantId) => attemptsOf(t, tenantId);
const queuedLeases = (tenantId = t.tenant.tenantId) => queuedEventLeases(t, tenantId);

// Every test starts from an empty queue: a hand-over takes the oldest events of any tenant.
beforeEach(async () => {
  time.advance(2 * LEASE_MS);
  while ((await fanOut(t.database.db, deps, 500)) > 0) {}
});

describe("an idle dispatcher's leased hand-over", () => {
  it('reads the attempts the fan-out makes and writes only leases until it is told to write them', async () => {
    const { early, exact, late } = await given.typedSubscriptions();

    const leased = await leaseHandOver(t.database.db, deps, request(16));
    expect(leased.events.ids).toHaveLength(2);
    expect(leased.claimed).toHaveLength(5);
    const [first, second] = leased.events.ids;
    const of = (eventId: string | undefined) =>
      leased.claimed.filter((c) => c.row.eventId === eventId).map((c) => c.row.subscriptionId);
    const both = [early, exact].map((s) => s.webhookSubscriptionId).sort();
    expect(of(first)).toEqual(both);
    expect(of(second)).toEqual([...both, late.webhookSubscriptionId].sort());
    for (const { row, target } of leased.claimed) {
      expect(row).toMatchObject({ leaseToken: 'idle', status: 'pending', attempt: 1 });
      expect(target.subscription?.id).toBe(row.subscriptionId);
      expect(target.event?.id).toBe(row.eventId);
    }
    // Nothing written but the leases: no attempt yet, and a fan-out leaves the events alone.
    expect(await attempts()).toEqual([]);
    expect(await queuedLeases()).toEqual(['idle', 'idle']);
    expect(await fanOut(t.database.db, deps, 500)).toBe(0);
    expect((await leaseHandOver(t.database.db, deps, request(16, 16, 'other'))).events.ids).toEqual([]);

    const written = await writeHandOver(t.database.db, leased, request(16));
    expect([...written].sort()).toEqual([...leased.events.ids].sort());
    const rows = await attempts();
    expect(rows.map((r) => r.id).sort()).toEqual(leased.claimed.map((c) => c.row.id).sort());
    expect(rows.every((r) => r.lease_token === 'idle')).toBe(true);
    expect(await queuedLeases()).toEqual([]);
    expect(await deliveriesCounted(t, t.tenant.tenantId, late.webhookSubscriptionId)).toBe(1);
  });

  it("takes per tenant its events in order while they fit the room and the tenant's share", async () => {
    const other = await given.twoTenants(4);
    const leased = await leaseHandOver(t.database.db, deps, request(5, 2));
    const byTenant = (tenantId: string) => leased.claimed.filter((c) => c.row.tenantId === tenantId);
    expect(byTenant(t.tenant.tenantId)).toHaveLength(2);
    expect(byTenant(other.tenantId)).toHaveLength(2);
    // The oldest two of each tenant: the rest stay queued, unleased, for the fan-out.
    expect(await queuedLeases()).toEqual(['idle', 'idle', null, null]);
    expect(await queuedLeases(other.tenantId)).toEqual(['idle', 'idle', null, null]);
    expect(leased.queued).toBe(8);
  });

  it('stops at the first event of a throttled subscription: it waits for its turn in the queue', async () => {
    const other = await t.seed.tenant();
    await h.subscribe(URL, { maxDeliveriesPerSecond: 5 });
    await h.subscribe(URL, {}, other);
    await h.version();
    await h.version(other);
    const leased = await leaseHandOver(t.database.db, deps, request(16));
    expect(leased.claimed.map((c) => c.row.tenantId)).toEqual([other.tenantId]);
    expect(await queuedLeases()).toEqual([null]);
    // Only the throttled event left: nothing is taken, and the caller writes before sending.
    await writeHandOver(t.database.db, leased, request(16));
    const alone = await leaseHandOver(t.database.db, deps, request(16));
    expect(alone).toMatchObject({ queued: 1, claimed: [], events: { ids: [] } });
  });

  it('takes an event whose lease ran out, and the late write of its first holder makes nothing', async () => {
    await h.subscribe(URL);
    await h.subscribe(URL);
    for (let i = 0; i < 3; i += 1) await h.version();
    const lost = await leaseHandOver(t.database.db, deps, request(16));
    expect(lost.events.ids).toHaveLength(3);
    time.advance(LEASE_MS + 1);
    // The first holder is gone: another dispatcher leases two of the events, a fan-out the third.
    const again = await leaseHandOver(t.database.db, deps, request(4, 4, 'next'));
    expect(again.events.ids).toHaveLength(2);
    expect(await fanOut(t.database.db, deps, 500)).toBe(1);
    expect(await writeHandOver(t.database.db, lost, request(16))).toEqual(new Set());
    expect(await writeHandOver(t.database.db, again, request(4, 4, 'next'))).toEqual(
      new Set(again.events.ids),
    );
    const rows = await attempts();
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => `${r.event_id} ${r.subscription_id}`)).size).toBe(6);
    expect(rows.filter((r) => r.lease_token === 'next')).toHaveLength(4);
  });

  it('leases each event once beside concurrent fan-outs and hand-overs', async () => {
    await given.fill(2, 12);
    const [a, , b] = await Promise.all([
      leaseHandOver(t.database.db, deps, request(8, 8, 'a')),
      fanOut(t.database.db, deps, 6),
      leaseHandOver(t.database.db, deps, request(8, 8, 'b')),
    ]);
    await writeHandOver(t.database.db, a, request(8, 8, 'a'));
    await writeHandOver(t.database.db, b, request(8, 8, 'b'));
    while ((await fanOut(t.database.db, deps, 500)) > 0) {}
    const rows = await attempts();
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((r) => `${r.event_id} ${r.subscription_id}`)).size).toBe(24);
    expect(await queuedLeases()).toEqual([]);
  });

  it('takes no more than its batch and says how many were queued', async () => {
    await h.subscribe(URL);
    for (let i = 0; i < HAND_OVER_BATCH + 2; i += 1) await h.version();
    const leased = await leaseHandOver(t.database.db, deps, request(64));
    expect(leased.events.ids).toHaveLength(HAND_OVER_BATCH);
    expect(leased.queued).toBe(HAND_OVER_BATCH);
  });

  it("takes a tenant's events whole while their attempts fit the 32 it may make", async () => {
    await given.fill(16, 3);
    const leased = await leaseHandOver(t.database.db, deps, request(64));
    // 16 subscriptions: the first 2 events, each with all its attempts; the third stays queued.
    expect(leased.events.ids).toHaveLength(2);
    expect(leased.claimed).toHaveLength(32);
    expect(new Set(leased.claimed.map((c) => c.row.id)).size).toBe(32);
    expect(await queuedLeases()).toEqual(['idle', 'idle', null]);
  });

  it('never sends an operational event to the subscription it is about', async () => {
    const { watcher } = await given.operationalEvent('evt_ops_lease');
    const leased = await leaseHandOver(t.database.db, deps, request(16));
    expect(leased.claimed.map((c) => c.row.subscriptionId)).toEqual([watcher.webhookSubscriptionId]);
  });

  it('keeps one plan that looks events up by key, however many events are stored', async () => {
    await h.subscribe(URL);
    await h.version();
    await expectEventsLookedUpByKey(t, (db) => leaseHandOver(db, deps, request(16)));
  });
});
