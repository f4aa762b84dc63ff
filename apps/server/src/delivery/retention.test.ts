import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.js';
import { query } from '../test/sql.js';
import { useWebhookTest } from '../test/webhooks.js';
import { pendingAttempt, queueAttempts } from './attempts.repo.js';
import { noopLog } from './dispatcher-options.js';
import {
  PURGE_BATCH,
  type Purged,
  purgeExpired,
  purgeTenant,
  RetentionSweeper,
  retainedSince,
} from './retention.js';

const DAYS = 2;
const w = useWebhookTest({ WEBHOOKS_RETENTION_DAYS: String(DAYS) });
const { time, t, h } = w;
const DAY_MS = 86_400_000;

async function counts(tenantId = t.tenant.tenantId) {
  const [row] = await query<{ attempts: number; events: number }>(
    t.database.db,
    `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE tenant_id = $1) AS attempts,
            (SELECT count(*)::int FROM webhook_events WHERE tenant_id = $1) AS events`,
    [tenantId],
  );
  return row;
}

async function listing(subscriptionId: string) {
  const res = await t.app.inject({
    url: `/v0/webhook_subscriptions/${subscriptionId}/deliveries?limit=100`,
    headers: t.auth(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { items: { deliveryId: string }[]; totalCount: number; retainedSince: string };
}

describe(`webhook retention (WEBHOOKS_RETENTION_DAYS=${DAYS})`, () => {
  it('purges finished attempts and events past the window, keeps the rest, and keeps the listing exact', async () => {
    const sub = await h.subscribe(w.receiver.url);
    for (let i = 0; i < 3; i += 1) await h.version();
    await h.dispatcher().runOnce();
    const old = await listing(sub.webhookSubscriptionId);
    expect(old.totalCount).toBe(3);

    time.advance((DAYS + 1) * DAY_MS);
    await h.version();
    await h.dispatcher().runOnce();
    // An old event still waiting for an attempt (a redelivery queued late): neither goes.
    const [oldEvent] = await query<{ event_id: string }>(
      t.database.db,
      'SELECT event_id FROM webhook_deliveries WHERE tenant_id = $1 ORDER BY created_at LIMIT 1',
      [t.tenant.tenantId],
    );
    const target = {
      tenantId: t.tenant.tenantId,
      subscriptionId: sub.webhookSubscriptionId,
      eventId: oldEvent?.event_id ?? '',
      eventType: 'page.version.created' as const,
    };
    await queueAttempts(t.database.db, [
      pendingAttempt(newId, target, {
        attempt: 2,
        retryStep: null,
        createdAt: new Date(time.clock().getTime() - (DAYS + 1) * DAY_MS),
        nextAttemptAt: new Date(time.clock().getTime() + DAY_MS),
      }),
    ]);

    const purged = await purgeExpired(t.database.db, time.clock(), DAYS);
    expect(purged).toEqual({ attempts: 3, events: 2 });
    expect(await counts()).toEqual({ attempts: 2, events: 2 });

    const now = await listing(sub.webhookSubscriptionId);
    const windowStart = time.clock().getTime() - DAYS * DAY_MS;
    expect(Math.abs(Date.parse(now.retainedSince) - windowStart)).toBeLessThan(5_000);
    expect(now.items).toHaveLength(2);
    expect(now.totalCount).toBe(2);
    // A purged attempt's id is not found.
    const gone = old.items[0]?.deliveryId;
    const redeliver = await t.app.inject({
      method: 'POST',
      url: `/v0/webhook_subscriptions/${sub.webhookSubscriptionId}/deliveries/${gone}/redeliver`,
      headers: t.auth(),
    });
    expect(redeliver.statusCode).toBe(404);
    expect(redeliver.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it("purges one tenant's rows batch after batch, and no other tenant's", async () => {
    const other = await t.seed.tenant();
    const mine = await h.subscribe(w.receiver.url);
    await h.subscribe(w.receiver.url, {}, other);
    await h.version(other);
    const events = PURGE_BATCH + 20;
    const rows = Array.from({ length: events }, () => newId('evt'));
    const at = time.clock().toISOString();
    await query(
      t.database.db,
      `WITH ev AS (
         INSERT INTO webhook_events (id, tenant_id, type, payload, created_at)
         SELECT id, $1, 'page.version.created', '{}'::jsonb, $3::timestamptz FROM unnest($2::text[]) AS a(id))
       INSERT INTO webhook_deliveries (id, tenant_id, subscription_id, event_id, event_type, attempt, retry_step,
         status, created_at)
       SELECT 'whdel_' || id, $1, $4, id, 'page.version.created', 1, 0, 'succeeded', $3::timestamptz
       FROM unnest($2::text[]) AS a(id)`,
      [t.tenant.tenantId, rows, at, mine.webhookSubscriptionId],
    );
    await h.dispatcher().runOnce();
    time.advance((DAYS + 1) * DAY_MS);
    const cutoff = retainedSince(time.clock(), DAYS);
    // One tenant's purge touches its own rows only, batch after batch.
    const purged = await purgeTenant(t.database.db, t.tenant.tenantId, cutoff);
    expect(purged.attempts).toBe(events);
    expect(await counts()).toEqual({ attempts: 0, events: 0 });
    expect(await counts(other.tenantId)).toEqual({ attempts: 1, events: 1 });
    await purgeExpired(t.database.db, time.clock(), DAYS);
    expect(await counts(other.tenantId)).toEqual({ attempts: 0, events: 0 });
  });

  it('keeps table sizes flat over a long run', async () => {
    const sub = await h.subscribe(w.receiver.url);
    const sizes: number[] = [];
    for (let day = 0; day < 8; day += 1) {
      for (let i = 0; i < 3; i += 1) await h.version();
      await h.dispatcher().runOnce();
      await purgeExpired(t.database.db, time.clock(), DAYS);
      const now = await counts();
      sizes.push((now?.attempts ?? 0) + (now?.events ?? 0));
      time.advance(DAY_MS);
    }
    // Each day adds 3 events and 3 attempts; the window holds the last DAYS days (DAYS + 1 at
    // its edge), and once it is full the tables stop growing.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(6 * (DAYS + 1));
    expect(new Set(sizes.slice(DAYS + 1)).size).toBe(1);
    const [left] = await query<{ n: number }>(
      t.database.db,
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1',
      [t.tenant.tenantId],
    );
    expect((await listing(sub.webhookSubscriptionId)).totalCount).toBe(left?.n);
  });

  it('purges on its own every interval, its first pass within the interval when that is under a minute', async () => {
    await h.subscribe(w.receiver.url);
    for (let i = 0; i < 2; i += 1) await h.version();
    await h.dispatcher().runOnce();
    time.advance((DAYS + 1) * DAY_MS);
    const passes: Purged[] = [];
    let passed: (() => void) | undefined;
    const log = {
      info: (purged: Purged) => {
        passes.push(purged);
        passed?.();
      },
      warn: () => {},
      error: () => {},
    };
    const sweeper = new RetentionSweeper({
      db: t.database.db,
      clock: time.clock,
      retentionDays: DAYS,
      log,
      intervalMs: 20,
    });
    const purgedOnce = new Promise<void>((resolve) => {
      passed = resolve;
    });
    sweeper.start();
    await purgedOnce;
    await sweeper.stop();
    // One pass ran (the suite's other tenants' old rows went with this one's).
    expect(passes).toHaveLength(1);
    expect(passes[0]?.attempts).toBeGreaterThanOrEqual(2);
    expect(await counts()).toEqual({ attempts: 0, events: 0 });
  });

  describe('beside deliveries', () => {
    afterEach(() => {
      t.database.observeStatements((_, execute) => execute());
    });

    /** Two expired attempts with their events, and the duration of each purge statement as the database ran it. */
    async function expiredRows(): Promise<number[]> {
      await h.subscribe(w.receiver.url);
      for (let i = 0; i < 2; i += 1) await h.version();
      await h.dispatcher().runOnce();
      time.advance((DAYS + 1) * DAY_MS);
      const ran: number[] = [];
      t.database.observeStatements(async (statement, execute) => {
        if (!statement.name?.startsWith('webhook_purge_')) return execute();
        const started = performance.now();
        try {
          return await execute();
        } finally {
          ran.push(performance.now() - started);
        }
      });
      return ran;
    }

    it('waits three times each statement while deliveries are under way, and never while idle', async () => {
      const ran = await expiredRows();
      const waits: number[] = [];
      let busy = true;
      const sweeper = new RetentionSweeper({
        db: t.database.db,
        clock: time.clock,
        retentionDays: DAYS,
        log: noopLog,
        busy: () => busy,
        pause: async (ms) => {
          waits.push(ms);
        },
      });
      const purged = await sweeper.runOnce();
      expect(purged.attempts).toBeGreaterThanOrEqual(2);
      expect(await counts()).toEqual({ attempts: 0, events: 0 });
      // One wait after each purge statement, each at least three times what the database took.
      expect(waits).toHaveLength(ran.length);
      waits.forEach((ms, i) => {
        expect(ms).toBeGreaterThanOrEqual(3 * (ran[i] ?? Number.POSITIVE_INFINITY));
      });

      busy = false;
      waits.length = 0;
      await h.version();
      await h.dispatcher().runOnce();
      time.advance((DAYS + 1) * DAY_MS);
      expect((await sweeper.runOnce()).attempts).toBeGreaterThanOrEqual(1);
      expect(waits).toEqual([]);
    });

    it('ends a pass waiting beside deliveries when the dispatcher stops, at the statement it had run', async () => {
      const ran = await expiredRows();
      let paused: (() => void) | undefined;
      const pausing = new Promise<void>((resolve) => {
        paused = resolve;
      });
      let signal: AbortSignal | undefined;
      const sweeper = new RetentionSweeper({
        db: t.database.db,
        clock: time.clock,
        retentionDays: DAYS,
        log: noopLog,
        intervalMs: 1,
        busy: () => true,
        // A wait that only a stop ends.
        pause: (_ms, given) => {
          signal = given;
          paused?.();
          return new Promise<void>(() => {});
        },
      });
      sweeper.start();
      await pausing;
      expect(signal?.aborted).toBe(false);
      await sweeper.stop();
      // The wait's own timer is told to go (the default pause clears it).
      expect(signal?.aborted).toBe(true);
      expect(ran).toHaveLength(1);
      // Every tenant's events are purged after its attempts: none of them went.
      expect((await counts())?.events).toBeGreaterThanOrEqual(2);
    });
  });
});
