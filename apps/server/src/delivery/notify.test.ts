import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { newId } from '../lib/ids.js';
import { isCitus } from '../test/citus.js';
import { query } from '../test/sql.js';
import { useWebhookTest } from '../test/webhooks.js';
import type { DeliveryObserver } from './deliver.js';
import { OUTBOX_CHANNEL, recordVersionEvent } from './outbox.js';

const w = useWebhookTest();
const { t, h } = w;

/** Far beyond any test's timeout: a delivery can only come from a notification. */
const POLL_AN_HOUR_AWAY = 3_600_000;

/**
 * A started dispatcher that is asleep: it listens before it starts (so no event can slip in
 * between its first poll and its LISTEN), and the promise resolves once its first poll found
 * nothing. Its next poll is an hour away.
 */
async function sleepingDispatcher(onClaim: (count: number) => void = () => {}): Promise<void> {
  let wake = () => {};
  // On PostgreSQL `listen` signals once when established (the "look once" catch-up): it happens
  // here, before the dispatcher exists, and its first poll plays that part.
  const unlisten = await t.database.listen(OUTBOX_CHANNEL, () => wake());
  let polled = () => {};
  const firstPoll = new Promise<void>((resolve) => {
    polled = resolve;
  });
  const observer: DeliveryObserver = {
    claimed: (count) => {
      onClaim(count);
      polled();
    },
    delivered: () => {},
  };
  const dispatcher = h.dispatcher({
    pollIntervalMs: POLL_AN_HOUR_AWAY,
    notifications: async (onEvent) => {
      wake = onEvent;
      return unlisten;
    },
    observer,
  });
  dispatcher.start();
  await firstPoll;
}

/**
 * Listens on the outbox channel with each notification's payload (the database's `listen` passes
 * none), on one connection: notifications reach it in commit order.
 */
async function listenWithPayloads(
  database: Database,
  databaseUrl: string | undefined,
  onPayload: (payload: string) => void,
): Promise<() => Promise<void>> {
  if (database.pglite) return database.pglite.listen(OUTBOX_CHANNEL, onPayload);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  client.on('notification', (message) => {
    if (message.channel === OUTBOX_CHANNEL) onPayload(message.payload ?? '');
  });
  await client.query(`LISTEN ${pg.escapeIdentifier(OUTBOX_CHANNEL)}`);
  return () => client.end();
}

describe('idle dispatchers wake on the outbox NOTIFY', () => {
  it('delivers an event committed while the dispatcher sleeps, long before its next poll', async () => {
    const sub = await h.subscribe(w.receiver.url);
    await sleepingDispatcher();
    expect(w.receiver.received).toHaveLength(0);
    const { version } = await h.version();
    // The poll is an hour away: only the notification explains a delivery within the timeout.
    const [got] = await w.receiver.waitFor(1, 45_000);
    expect(JSON.parse(got?.body ?? '{}').payload.versionId).toBe(version.versionId);
    await expect
      .poll(async () => (await h.deliveries(sub.webhookSubscriptionId))[0]?.status, { timeout: 30_000 })
      .toBe('succeeded');
  });

  it('claims again only when an event arrives, not after each delivery of an idle stream', async () => {
    const sub = await h.subscribe(w.receiver.url);
    const claims: number[] = [];
    await sleepingDispatcher((count) => claims.push(count));
    claims.length = 0;
    const events = 4;
    for (let i = 1; i <= events; i += 1) {
      await h.version();
      await w.receiver.waitFor(i, 45_000);
      // Recorded before the next event: each delivery's own claims, not an overlap of two.
      await expect
        .poll(
          async () => (await h.deliveries(sub.webhookSubscriptionId)).filter((d) => d.status === 'succeeded'),
          {
            timeout: 30_000,
          },
        )
        .toHaveLength(i);
    }
    // Each event: the claim that takes it, and at most one that finds nothing (riding with its
    // success); never a claim for every slot freed while nothing else is due.
    expect(claims.filter((c) => c > 0)).toEqual(Array(events).fill(1));
    expect(claims.filter((c) => c === 0).length).toBeLessThanOrEqual(events);
  });

  it("sends an idle dispatcher's new event after one statement, and writes its attempt meanwhile", async () => {
    const sub = await h.subscribe(w.receiver.url);
    await sleepingDispatcher();
    const citus = await isCitus(t.database.db);
    const names: string[] = [];
    let recording = true;
    t.database.observeStatements((statement, execute) => {
      if (!recording) return execute();
      names.push(statement.name);
      // The attempt's write waits for the POST: the send cannot be waiting for the write.
      if (statement.name === 'webhook_hand_over_write') {
        return w.receiver.waitFor(1, 45_000).then(() => execute());
      }
      return execute();
    });
    try {
      await h.version();
      await w.receiver.waitFor(1, 45_000);
      await expect
        .poll(async () => (await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status), {
          timeout: 30_000,
        })
        .toEqual(['succeeded']);
    } finally {
      recording = false;
    }
    // From the notification to the send: one statement, no separate read, fan-out or claim. On a
    // cluster, where statements run per tenant: the read, the tenant's fan-out and its claim.
    const fanOutOrClaim = /^webhook_(fan_out|lease|hand_over)/;
    expect(names.filter((name) => fanOutOrClaim.test(name))).toEqual(
      citus
        ? ['webhook_fan_out_pending_joined', 'webhook_fan_out_dequeue_tenant', 'webhook_lease_tenant_targets']
        : ['webhook_hand_over_lease', 'webhook_hand_over_write'],
    );
  });

  it("sends a hand-over's event again when its attempt could not be written, once the lease runs out", async () => {
    const sub = await h.subscribe(w.receiver.url);
    await sleepingDispatcher();
    if (await isCitus(t.database.db)) return;
    let failWrites = true;
    const writes: string[] = [];
    t.database.observeStatements((statement, execute) => {
      if (statement.name !== 'webhook_hand_over_write') return execute();
      writes.push(failWrites ? 'failed' : 'written');
      return failWrites ? Promise.reject(new Error('write lost')) : execute();
    });
    await h.version();
    await w.receiver.waitFor(1, 45_000);
    await expect.poll(() => writes, { timeout: 30_000 }).toEqual(['failed']);
    // Sent, but not written: nothing is recorded, and the event stays queued, leased.
    expect(await h.deliveries(sub.webhookSubscriptionId)).toEqual([]);
    failWrites = false;
    w.time.advance(61_000 + 1_000);
    // The next event's notification: the hand-over takes the one whose lease ran out with it.
    await h.version();
    await expect
      .poll(async () => (await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status), {
        timeout: 30_000,
      })
      .toEqual(['succeeded', 'succeeded']);
    expect(w.receiver.received).toHaveLength(3);
    expect(new Set(w.receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(2);
  });

  it("lists a hand-over's attempt as pending while a slow receiver holds it", async () => {
    const sub = await h.subscribe(w.receiver.url);
    let answer = () => {};
    w.receiver.script({ until: new Promise<void>((resolve) => (answer = resolve)) });
    await sleepingDispatcher();
    await h.version();
    await w.receiver.waitFor(1, 45_000);
    // Sent before it was written, and written while the exchange is still open.
    await expect
      .poll(async () => (await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status), {
        timeout: 30_000,
      })
      .toEqual(['pending']);
    answer();
    await expect
      .poll(async () => (await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status), {
        timeout: 30_000,
      })
      .toEqual(['succeeded']);
    expect(w.receiver.received).toHaveLength(1);
  });

  it('notifies only on commit: a rolled-back event neither wakes nor is delivered', async () => {
    const { page, audience, version } = await h.version();
    let wakes = 0;
    const unlisten = await t.database.listen(OUTBOX_CHANNEL, () => {
      wakes += 1;
    });
    const payloads: string[] = [];
    let marked = () => {};
    const marker = new Promise<void>((resolve) => {
      marked = resolve;
    });
    const unlistenPayloads = await listenWithPayloads(t.database, t.config.databaseUrl, (payload) => {
      payloads.push(payload);
      if (payload === 'committed') marked();
    });
    try {
      const before = wakes;
      const rollback = new Error('roll back');
      const rolledBack = t.database.db.transaction(async (tx) => {
        await recordVersionEvent(tx, { clock: w.time.clock, ids: newId }, 'page.version.created', {
          tenantId: t.tenant.tenantId,
          pageId: page.pageId,
          audienceId: audience.audienceId,
          versionId: version.versionId,
          status: version.status,
          createdAt: new Date(version.createdAt),
        });
        throw rollback;
      });
      await expect(rolledBack).rejects.toBe(rollback);
      await query(t.database.db, "SELECT pg_notify($1, 'committed')", [OUTBOX_CHANNEL]);
      await marker;
      // Notifications reach a listener in commit order: the rolled-back event's would come first.
      expect(payloads).toEqual(['committed']);
      await expect.poll(() => wakes, { timeout: 30_000 }).toBe(before + 1);
    } finally {
      await unlistenPayloads();
      await unlisten();
    }
  });
});
