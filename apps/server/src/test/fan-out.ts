import { beforeEach, expect } from 'vitest';
import type { Handle } from '../db/port.js';
import { newId } from '../lib/ids.js';
import { skipSpanningTenantsOnCitus } from './citus.js';
import { genericPlan, query, scansOf, statementOf } from './sql.js';
import { type TestApp, useTestApp } from './test-app.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from './webhooks.js';

/** A subscription address nothing listens on: the fan-out's statement tests never send. */
export const UNSENT_URL = 'http://127.0.0.1:9/hooks';

/**
 * A test file of the delivery engine's statements (fan-out, hand-over, claims): an app on a
 * stepping clock, its webhook helpers and the engine's deps. On a Citus cluster its tests, which
 * take events of every tenant, are skipped.
 */
export function useFanOutTest() {
  const time = steppingClock();
  const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });
  beforeEach(async (context) => {
    await skipSpanningTenantsOnCitus(t.database.db, context);
  });
  const h = webhookHelpers(t, time.clock);
  return { time, t, h, deps: { clock: time.clock, ids: newId }, given: scenarios(t, h, time) };
}

/** An attempt as the fan-out's statement tests look at it: its log row and its queue row's lease. */
export interface AttemptRow {
  id: string;
  event_id: string;
  subscription_id: string;
  lease_token: string | null;
  status: string;
}

/** The attempts of `tenantId`, by event and subscription. */
export async function attemptsOf(t: TestApp, tenantId: string): Promise<AttemptRow[]> {
  return query<AttemptRow>(
    t.database.db,
    `SELECT d.id, d.event_id, d.subscription_id, q.lease_token, d.status FROM webhook_deliveries d
     LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
     WHERE d.tenant_id = $1 ORDER BY d.event_id, d.subscription_id`,
    [tenantId],
  );
}

/** The leases of `tenantId`'s queued events, oldest first (null: not leased). */
export async function queuedEventLeases(t: TestApp, tenantId: string): Promise<(string | null)[]> {
  const rows = await query<{ lease_token: string | null }>(
    t.database.db,
    'SELECT lease_token FROM webhook_event_queue WHERE tenant_id = $1 ORDER BY event_id',
    [tenantId],
  );
  return rows.map((r) => r.lease_token);
}

/** What the fan-out's statement tests start from: every statement that fans out must agree on them. */
function scenarios(t: TestApp, h: ReturnType<typeof webhookHelpers>, time: ReturnType<typeof steppingClock>) {
  return {
    /**
     * Three subscriptions taking all, the created and the published versions, an event, a fourth
     * subscription taking created versions, another event: the first event reaches `early` and
     * `exact`, the second also `late`.
     */
    async typedSubscriptions() {
      const early = await h.subscribe(UNSENT_URL, { eventTypes: ['page.version.*'] });
      const exact = await h.subscribe(UNSENT_URL, { eventTypes: ['page.version.created'] });
      await h.subscribe(UNSENT_URL, { eventTypes: ['page.version.published'] });
      await h.version();
      time.advance(1_000);
      const late = await h.subscribe(UNSENT_URL, { eventTypes: ['page.version.created'] });
      time.advance(1_000);
      await h.version();
      return { early, exact, late };
    },
    /** `subscriptions` subscriptions of the test's tenant, then `events` events of it. */
    async fill(subscriptions: number, events: number) {
      for (let i = 0; i < subscriptions; i += 1) await h.subscribe(`${UNSENT_URL}/${i}`);
      for (let i = 0; i < events; i += 1) await h.version();
    },
    /** Another tenant; each has one subscription and `events` events, interleaved. */
    async twoTenants(events: number) {
      const other = await t.seed.tenant();
      await h.subscribe(UNSENT_URL);
      await h.subscribe(UNSENT_URL, {}, other);
      for (let i = 0; i < events; i += 1) {
        await h.version();
        await h.version(other);
      }
      return other;
    },
    /** A new tenant with an operational event `id` queued about one subscription, and a `watcher` asking for it. */
    async operationalEvent(id: string) {
      const tenant = await t.seed.tenant();
      const subject = await h.subscribe(UNSENT_URL, { eventTypes: ['webhook.*'] }, tenant);
      const watcher = await h.subscribe(UNSENT_URL, { eventTypes: ['webhook.delivery.exhausted'] }, tenant);
      time.advance(1_000);
      await queueOperationalEvent(t, {
        id,
        tenantId: tenant.tenantId,
        subjectId: subject.webhookSubscriptionId,
        at: time.clock(),
      });
      return { tenant, watcher };
    },
  };
}

/** The deliveries counted for `subscriptionId` (the delivery list's total). */
export async function deliveriesCounted(
  t: TestApp,
  tenantId: string,
  subscriptionId: string,
): Promise<number> {
  const [counter] = await query<{ count: number }>(
    t.database.db,
    'SELECT count FROM tenant_counters WHERE tenant_id = $1 AND scope = $2',
    [tenantId, `webhook_deliveries:${subscriptionId}`],
  );
  return Number(counter?.count);
}

/** Queues an operational event `id` about `subjectId`, written as the dispatcher writes them. */
async function queueOperationalEvent(
  t: TestApp,
  event: { id: string; tenantId: string; subjectId: string; at: Date },
): Promise<void> {
  await query(
    t.database.db,
    `WITH ev AS (INSERT INTO webhook_events (id, tenant_id, type, payload, created_at, subject_subscription_id)
       VALUES ($1, $2, 'webhook.delivery.exhausted', '{}', $3, $4))
     INSERT INTO webhook_event_queue (event_id, tenant_id) VALUES ($1, $2)`,
    [event.id, event.tenantId, event.at.toISOString(), event.subjectId],
  );
}

/**
 * Checks that the plan PostgreSQL keeps for the statement `run` sends looks events up by key when
 * 2,000 more events were stored since the statistics were taken (a plan that joins by tenant would
 * read them all). `run` finds one queued event of the test's tenant.
 */
export async function expectEventsLookedUpByKey(
  t: TestApp,
  run: (db: Handle) => Promise<unknown>,
): Promise<void> {
  await query(t.database.db, 'ANALYZE webhook_events');
  await query(
    t.database.db,
    `INSERT INTO webhook_events (id, tenant_id, type, payload, created_at)
     SELECT 'evt_bulk' || g, tenant_id, type, payload, created_at FROM webhook_events, generate_series(1, 2000) g
     WHERE tenant_id = $1`,
    [t.tenant.tenantId],
  );
  await query(t.database.db, 'ANALYZE webhook_events');
  const sent = await statementOf(t.database.db, run);
  const scans = scansOf(await genericPlan(t.database.db, sent), 'webhook_events');
  expect(scans.length).toBeGreaterThan(0);
  expect(scans.every((s) => s.index === 'webhook_events_pkey')).toBe(true);
}
