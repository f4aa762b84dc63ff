import { beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { skipSpanningTenantsOnCitus } from '../test/citus.js';
import { genericPlan, query, scansOf, statementOf } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { fanOut } from './fan-out.js';
import type { HandOverRequest } from './hand-over.js';
import { LEASED_HAND_OVER_BATCH, leaseHandOver, writeHandOver } from './hand-over-lease.js';

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });

beforeEach(async (context) => {
  await skipSpanningTenantsOnCitus(t.database.db, context);
});
const h = webhookHelpers(t, time.clock);
const deps = { clock: time.clock, ids: newId };
const URL = 'http://127.0.0.1:9/hooks';
const LEASE_MS = 60_000;

function request(limit: number, tenantCap = limit, token = 'idle'): HandOverRequest {
  return { token, leasedUntil: new Date(time.clock().getTime() + LEASE_MS), limit, tenantCap };
}

interface AttemptRow {
  id: string;
  event_id: string;
  subscription_id: string;
  lease_token: string | null;
}

async function attempts(tenantId = t.tenant.tenantId): Promise<AttemptRow[]> {
  return query<AttemptRow>(
    t.database.db,
    `SELECT d.id, d.event_id, d.subscription_id, q.lease_token FROM webhook_deliveries d
     LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
     WHERE d.tenant_id = $1 ORDER BY d.event_id, d.subscription_id`,
    [tenantId],
  );
}

async function queuedLeases(tenantId = t.tenant.tenantId): Promise<(string | null)[]> {
  const rows = await query<{ lease_token: string | null }>(
    t.database.db,
    'SELECT lease_token FROM webhook_event_queue WHERE tenant_id = $1 ORDER BY event_id',
    [tenantId],
  );
  return rows.map((r) => r.lease_token);
}

// Every test starts from an empty queue: a hand-over takes the oldest events of any tenant.
beforeEach(async () => {
  time.advance(2 * LEASE_MS);
  while ((await fanOut(t.database.db, deps, 500)) > 0) {}
});

describe("an idle dispatcher's leased hand-over", () => {
  it('reads the attempts the fan-out makes and writes only leases until it is told to write them', async () => {
    const early = await h.subscribe(URL, { eventTypes: ['page.version.*'] });
    const exact = await h.subscribe(URL, { eventTypes: ['page.version.created'] });
    await h.subscribe(URL, { eventTypes: ['page.version.published'] });
    await h.version();
    time.advance(1_000);
    // Subscribed after the first event: only the second reaches it.
    const late = await h.subscribe(URL, { eventTypes: ['page.version.created'] });
    time.advance(1_000);
    await h.version();

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
    const [counter] = await query<{ count: number }>(
      t.database.db,
      'SELECT count FROM tenant_counters WHERE tenant_id = $1 AND scope = $2',
      [t.tenant.tenantId, `webhook_deliveries:${late.webhookSubscriptionId}`],
    );
    expect(Number(counter?.count)).toBe(1);
  });

  it("takes per tenant its events in order while they fit the room and the tenant's share", async () => {
    const other = await t.seed.tenant();
    await h.subscribe(URL);
    await h.subscribe(URL, {}, other);
    for (let i = 0; i < 4; i += 1) {
      await h.version();
      await h.version(other);
    }
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
    await h.subscribe(URL);
    await h.subscribe(URL);
    for (let i = 0; i < 12; i += 1) await h.version();
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
    for (let i = 0; i < LEASED_HAND_OVER_BATCH + 2; i += 1) await h.version();
    const leased = await leaseHandOver(t.database.db, deps, request(64));
    expect(leased.events.ids).toHaveLength(LEASED_HAND_OVER_BATCH);
    expect(leased.queued).toBe(LEASED_HAND_OVER_BATCH);
  });

  it("takes a tenant's events whole while their attempts fit the 32 ids it brings", async () => {
    for (let i = 0; i < 16; i += 1) await h.subscribe(`${URL}/${i}`);
    for (let i = 0; i < 3; i += 1) await h.version();
    const leased = await leaseHandOver(t.database.db, deps, request(64));
    // 16 subscriptions: the first 2 events, each with all its attempts; the third stays queued.
    expect(leased.events.ids).toHaveLength(2);
    expect(leased.claimed).toHaveLength(32);
    expect(new Set(leased.claimed.map((c) => c.row.id)).size).toBe(32);
    expect(await queuedLeases()).toEqual(['idle', 'idle', null]);
  });

  it('never sends an operational event to the subscription it is about', async () => {
    const tenant = await t.seed.tenant();
    const subject = await h.subscribe(URL, { eventTypes: ['webhook.*'] }, tenant);
    const watcher = await h.subscribe(URL, { eventTypes: ['webhook.delivery.exhausted'] }, tenant);
    time.advance(1_000);
    await query(
      t.database.db,
      `WITH ev AS (INSERT INTO webhook_events (id, tenant_id, type, payload, created_at, subject_subscription_id)
         VALUES ('evt_ops_lease', $1, 'webhook.delivery.exhausted', '{}', $2, $3))
       INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES ('evt_ops_lease', $1)`,
      [tenant.tenantId, time.clock().toISOString(), subject.webhookSubscriptionId],
    );
    const leased = await leaseHandOver(t.database.db, deps, request(16));
    expect(leased.claimed.map((c) => c.row.subscriptionId)).toEqual([watcher.webhookSubscriptionId]);
  });

  it('keeps one plan that looks events up by key, however many events are stored', async () => {
    await h.subscribe(URL);
    await h.version();
    await query(t.database.db, 'ANALYZE webhook_events');
    await query(
      t.database.db,
      `INSERT INTO webhook_events (id, tenant_id, type, payload, created_at)
       SELECT 'evt_bulk' || g, tenant_id, type, payload, created_at FROM webhook_events, generate_series(1, 2000) g
       WHERE tenant_id = $1`,
      [t.tenant.tenantId],
    );
    await query(t.database.db, 'ANALYZE webhook_events');
    const sent = await statementOf(t.database.db, (db) => leaseHandOver(db, deps, request(16)));
    const scans = scansOf(await genericPlan(t.database.db, sent), 'webhook_events');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.every((s) => s.index === 'webhook_events_pkey')).toBe(true);
  });
});
