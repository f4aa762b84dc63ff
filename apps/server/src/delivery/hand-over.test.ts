import { beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { skipSpanningTenantsOnCitus } from '../test/citus.js';
import { genericPlan, query, scansOf, statementOf } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { fanOut } from './fan-out.js';
import { HAND_OVER_BATCH, type HandOverRequest, handOver } from './hand-over.js';

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });

beforeEach(async (context) => {
  await skipSpanningTenantsOnCitus(t.database.db, context);
});
const h = webhookHelpers(t, time.clock);
const deps = { clock: time.clock, ids: newId };
const URL = 'http://127.0.0.1:9/hooks';

function request(limit: number, tenantCap = limit): HandOverRequest {
  return { token: 'idle', leasedUntil: new Date(time.clock().getTime() + 60_000), limit, tenantCap };
}

interface AttemptRow {
  event_id: string;
  subscription_id: string;
  lease_token: string | null;
  status: string;
}

async function attempts(tenantId = t.tenant.tenantId): Promise<AttemptRow[]> {
  return query<AttemptRow>(
    t.database.db,
    `SELECT d.event_id, d.subscription_id, q.lease_token, d.status FROM webhook_deliveries d
     LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
     WHERE d.tenant_id = $1 ORDER BY d.event_id, d.subscription_id`,
    [tenantId],
  );
}

async function queued(tenantId = t.tenant.tenantId): Promise<number> {
  const [row] = await query<{ n: number }>(
    t.database.db,
    'SELECT count(*)::int AS n FROM webhook_event_queue WHERE tenant_id = $1',
    [tenantId],
  );
  return Number(row?.n ?? 0);
}

// Every test starts from an empty queue: a hand-over takes the oldest events of any tenant.
beforeEach(async () => {
  while ((await fanOut(t.database.db, deps, 500)) > 0) {}
});

describe("an idle dispatcher's hand-over", () => {
  it('makes the attempts the fan-out makes, for the same subscriptions, and leases them', async () => {
    const early = await h.subscribe(URL, { eventTypes: ['page.version.*'] });
    const exact = await h.subscribe(URL, { eventTypes: ['page.version.created'] });
    await h.subscribe(URL, { eventTypes: ['page.version.published'] });
    await h.version();
    time.advance(1_000);
    // Subscribed after the first event: only the second reaches it.
    const late = await h.subscribe(URL, { eventTypes: ['page.version.created'] });
    time.advance(1_000);
    await h.version();

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
    const [counter] = await query<{ count: number }>(
      t.database.db,
      'SELECT count FROM tenant_counters WHERE tenant_id = $1 AND scope = $2',
      [t.tenant.tenantId, `webhook_deliveries:${late.webhookSubscriptionId}`],
    );
    expect(Number(counter?.count)).toBe(1);
  });

  it('leases no more than the room and each tenant its share; the rest wait unleased', async () => {
    const other = await t.seed.tenant();
    await h.subscribe(URL);
    await h.subscribe(URL, {}, other);
    for (let i = 0; i < 4; i += 1) {
      await h.version();
      await h.version(other);
    }
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
    for (let i = 0; i < 16; i += 1) await h.subscribe(`${URL}/${i}`);
    for (let i = 0; i < HAND_OVER_BATCH; i += 1) await h.version();
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
    await h.subscribe(URL);
    await h.subscribe(URL);
    for (let i = 0; i < 12; i += 1) await h.version();
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
    // Events written since the statistics were taken: a plan that joins by tenant would read them all.
    await query(t.database.db, 'ANALYZE webhook_events');
    await query(
      t.database.db,
      `INSERT INTO webhook_events (id, tenant_id, type, payload, created_at)
       SELECT 'evt_bulk' || g, tenant_id, type, payload, created_at FROM webhook_events, generate_series(1, 2000) g
       WHERE tenant_id = $1`,
      [t.tenant.tenantId],
    );
    await query(t.database.db, 'ANALYZE webhook_events');
    const sent = await statementOf(t.database.db, (db) => handOver(db, deps, request(16)));
    const scans = scansOf(await genericPlan(t.database.db, sent), 'webhook_events');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.every((s) => s.index === 'webhook_events_pkey')).toBe(true);
  });

  it('never hands an operational event to the subscription it is about', async () => {
    const tenant = await t.seed.tenant();
    const subject = await h.subscribe(URL, { eventTypes: ['webhook.*'] }, tenant);
    const watcher = await h.subscribe(URL, { eventTypes: ['webhook.delivery.exhausted'] }, tenant);
    time.advance(1_000);
    await query(
      t.database.db,
      `WITH ev AS (INSERT INTO webhook_events (id, tenant_id, type, payload, created_at, subject_subscription_id)
         VALUES ('evt_ops', $1, 'webhook.delivery.exhausted', '{}', $2, $3))
       INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES ('evt_ops', $1)`,
      [tenant.tenantId, time.clock().toISOString(), subject.webhookSubscriptionId],
    );
    const handed = await handOver(t.database.db, deps, request(16));
    expect(handed.claimed.map((c) => c.row.subscriptionId)).toEqual([watcher.webhookSubscriptionId]);
    expect((await attempts(tenant.tenantId)).map((r) => r.subscription_id)).toEqual([
      watcher.webhookSubscriptionId,
    ]);
  });
});
