import { beforeEach, describe, expect, it } from 'vitest';
import type { Handle } from '../db/port.js';
import { newId } from '../lib/ids.js';
import { skipSpanningTenantsOnCitus } from '../test/citus.js';
import { query } from '../test/sql.js';
import { useTestApp } from '../test/test-app.js';
import { steppingClock, WEBHOOK_TEST_ENV, webhookHelpers } from '../test/webhooks.js';
import { completeSuccess } from './attempts.repo.js';
import { fanOut } from './fan-out.js';
import { type Claimed, completeAndLease, leaseDue } from './lease.repo.js';
import { type Leaving, SuccessRecorder } from './success-batch.js';

const time = steppingClock();
const t = useTestApp({ clock: time.clock, env: WEBHOOK_TEST_ENV });

beforeEach(async (context) => {
  await skipSpanningTenantsOnCitus(t.database.db, context);
});
const h = webhookHelpers(t, time.clock);

/** Publishes `versions` versions, fans them out and leases every attempt to `mine`. */
async function leaseNewAttempts(versions: number) {
  for (let i = 0; i < versions; i += 1) await h.version();
  await fanOut(t.database.db, { clock: time.clock, ids: newId });
  const now = time.clock();
  const leasedUntil = new Date(now.getTime() + 60_000);
  return { now, leased: await leaseDue(t.database.db, { now, leasedUntil, token: 'mine', limit: 100 }) };
}

describe('recording successes in batches', () => {
  it('writes every attempt still leased to its recorder, none other, and ends failure runs', async () => {
    const db = t.database.db;
    const failing = await h.subscribe('http://127.0.0.1:9/a');
    const healthy = await h.subscribe('http://127.0.0.1:9/b');
    await query(db, 'UPDATE webhook_subscriptions SET failing_since = $1 WHERE id = $2', [
      time.clock().toISOString(),
      failing.webhookSubscriptionId,
    ]);
    const { now, leased } = await leaseNewAttempts(3);
    expect(leased).toHaveLength(6);

    // Settled in one turn, so they go out together; one claims a lease it does not hold.
    const recorder = new SuccessRecorder(db);
    const [stolen, ...own] = leased;
    if (!stolen) throw new Error('nothing leased');
    const result = { responseStatus: 204, responseBody: '', durationMs: 2, attemptedAt: now };
    const recorded = await Promise.all([
      recorder.record(stolen, 'not-mine', result),
      ...own.map((row) => recorder.record(row, 'mine', result)),
    ]);
    expect(recorded).toEqual([false, true, true, true, true, true]);

    const rows = await query(
      db,
      `SELECT d.*, q.lease_token FROM webhook_deliveries d
       LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
       WHERE d.id = ANY ($1::text[])`,
      [leased.map((r) => r.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(stolen.id)).toMatchObject({
      status: 'pending',
      lease_token: 'mine',
      response_status: null,
    });
    for (const row of own) {
      expect(byId.get(row.id)).toMatchObject({
        status: 'succeeded',
        response_status: 204,
        lease_token: null,
      });
    }
    const subs = await query(
      db,
      'SELECT failing_since FROM webhook_subscriptions WHERE id = ANY ($1::text[])',
      [[failing.webhookSubscriptionId, healthy.webhookSubscriptionId]],
    );
    expect(subs.map((s) => s.failing_since)).toEqual([null, null]);

    // A second record of the same attempt (a late duplicate) finds nothing to write.
    const [first] = own;
    if (!first) throw new Error('nothing recorded');
    expect(await recorder.record(first, 'mine', result)).toBe(false);
  });

  it('finds each attempt where its claim left it, or by its key when it moved or points elsewhere', async () => {
    const db = t.database.db;
    await h.subscribe('http://127.0.0.1:9/moved');
    const { now, leased } = await leaseNewAttempts(4);
    const [moved, elsewhere, other, unknown] = leased;
    if (!moved || !elsewhere || !other || !unknown) throw new Error('four attempts expected');
    for (const row of leased) expect(row.queueAt).toMatch(/^\(\d+,\d+\)$/);
    // A write that keeps the lease moves the row: where the claim saw it is stale.
    await query(db, 'UPDATE webhook_delivery_queue SET leased_until = leased_until WHERE id = $1', [
      moved.id,
    ]);

    const recorder = new SuccessRecorder(db);
    const result = { responseStatus: 200, responseBody: '', durationMs: 1, attemptedAt: now };
    const recorded = await Promise.all([
      recorder.record(moved, 'mine', result),
      // Pointing at another attempt leased to the same token writes this one, never that one.
      recorder.record({ ...elsewhere, queueAt: other.queueAt }, 'mine', result),
      recorder.record({ ...unknown, queueAt: null }, 'mine', result),
    ]);
    expect(recorded).toEqual([true, true, true]);

    const rows = await query(
      db,
      `SELECT d.id, d.status, q.id AS queued FROM webhook_deliveries d
       LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
       WHERE d.id = ANY ($1::text[])`,
      [leased.map((r) => r.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const row of [moved, elsewhere, unknown]) {
      expect(byId.get(row.id)).toMatchObject({ status: 'succeeded', queued: null });
    }
    expect(byId.get(other.id)).toMatchObject({ status: 'pending', queued: other.id });
  });

  it('makes the claim riding with a batch in its statement: never the batch again, its share counted out', async () => {
    const db = t.database.db;
    const sub = await h.subscribe('http://127.0.0.1:9/c');
    for (let i = 0; i < 6; i += 1) await h.version();
    await fanOut(db, { clock: time.clock, ids: newId });
    const now = time.clock();
    const request = (limit: number) => ({
      now,
      leasedUntil: new Date(now.getTime() + 60_000),
      token: 'mine',
      limit,
    });
    const batch = await leaseDue(db, request(2));
    expect(batch).toHaveLength(2);

    // Two held, both recorded by this statement: with them counted out, the tenant's cap of 3 has
    // room for 3 more (counted in, it would have room for 1).
    const asked: Leaving[][] = [];
    let claimed: Claimed[] | undefined;
    const recorder = new SuccessRecorder(db, {
      request: (leaving) => {
        asked.push([...leaving]);
        const held = 2 - leaving.length;
        const inFlight =
          held > 0
            ? [{ tenantId: t.tenant.tenantId, subscriptionId: sub.webhookSubscriptionId, count: held }]
            : [];
        return { ...request(10), tenantCap: 3, inFlight };
      },
      done: (rows) => {
        claimed = rows;
      },
    });
    const result = { responseStatus: 200, responseBody: '', durationMs: 1, attemptedAt: now };
    const recorded = await Promise.all(batch.map((row) => recorder.record(row, 'mine', result, row)));
    expect(recorded).toEqual([true, true]);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.map((l) => l.subscriptionId)).toEqual([
      sub.webhookSubscriptionId,
      sub.webhookSubscriptionId,
    ]);

    // (The other tests' tenants have nothing claimable: their attempts are recorded or still leased.)
    expect(claimed).toHaveLength(3);
    const batchIds = new Set(batch.map((r) => r.id));
    for (const c of claimed ?? []) {
      expect(batchIds.has(c.row.id)).toBe(false);
      expect(c.target.subscription?.id).toBe(sub.webhookSubscriptionId);
      expect(c.target.event?.id).toBe(c.row.eventId);
    }
    const rows = await query(
      db,
      `SELECT d.status, q.lease_token FROM webhook_deliveries d
       LEFT JOIN webhook_delivery_queue q ON q.tenant_id = d.tenant_id AND q.id = d.id
       WHERE d.subscription_id = $1`,
      [sub.webhookSubscriptionId],
    );
    const states = rows.map((r) => `${r.status}:${r.lease_token ?? '-'}`).sort();
    expect(states).toEqual([
      'pending:-',
      'pending:mine',
      'pending:mine',
      'pending:mine',
      'succeeded:-',
      'succeeded:-',
    ]);
  });
});

/** Rows of `table` this transaction updated, and how many of those were heap-only updates. */
async function updatesInTransaction(tx: Handle, table: string): Promise<{ updated: number; hot: number }> {
  const [row] = await query<{ updated: number; hot: number }>(
    tx,
    `SELECT pg_stat_get_xact_tuples_updated($1::regclass)::int AS updated,
       pg_stat_get_xact_tuples_hot_updated($1::regclass)::int AS hot`,
    [table],
  );
  return row ?? { updated: -1, hot: -1 };
}

describe('a recorded success', () => {
  it('writes its log row in place (no index touched) and takes its attempt off the queue', async () => {
    const db = t.database.db;
    const sub = await h.subscribe('http://127.0.0.1:9/hot');
    for (let i = 0; i < 3; i += 1) await h.version();
    await fanOut(db, { clock: time.clock, ids: newId });
    const now = time.clock();
    const lease = { now, leasedUntil: new Date(now.getTime() + 60_000), token: 'mine' };
    const result = { responseStatus: 200, responseBody: 'ok', durationMs: 3, attemptedAt: now };
    await db.transaction(async (tx) => {
      // (PGlite flushes no counts between transactions: what this one adds is the difference.)
      const start = await updatesInTransaction(tx, 'webhook_deliveries');
      const leased = await leaseDue(tx, { ...lease, limit: 100 });
      const [single, ...batch] = leased.filter((r) => r.subscriptionId === sub.webhookSubscriptionId);
      if (!single) throw new Error('nothing leased');
      expect(batch).toHaveLength(2);
      expect(await completeSuccess(tx, single, 'mine', result)).toBe(true);
      const { recorded } = await completeAndLease(
        tx,
        {
          tenantIds: batch.map((r) => r.tenantId),
          ids: batch.map((r) => r.id),
          tokens: batch.map(() => 'mine'),
          queueAts: batch.map((r) => r.queueAt),
          responseStatuses: batch.map(() => 200),
          responseBodies: batch.map(() => 'ok'),
          durationsMs: batch.map(() => 3),
          attemptedAt: batch.map(() => now),
        },
        { ...lease, limit: 0 },
      );
      expect(recorded.size).toBe(2);
      // Every update of the log in this transaction (the three successes) was heap-only.
      const end = await updatesInTransaction(tx, 'webhook_deliveries');
      expect({ updated: end.updated - start.updated, hot: end.hot - start.hot }).toEqual({
        updated: 3,
        hot: 3,
      });
    });
    const rows = await query<{ status: string; response_status: number; queued: boolean }>(
      db,
      `SELECT d.status, d.response_status,
         EXISTS (SELECT 1 FROM webhook_delivery_queue q WHERE q.tenant_id = d.tenant_id AND q.id = d.id) AS queued
       FROM webhook_deliveries d WHERE d.subscription_id = $1`,
      [sub.webhookSubscriptionId],
    );
    expect(rows).toEqual(
      Array.from({ length: 3 }, () => ({ status: 'succeeded', response_status: 200, queued: false })),
    );
  });
});
