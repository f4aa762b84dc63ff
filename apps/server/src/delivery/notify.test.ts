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

  it("hands an idle dispatcher the new event's attempts from the fan-out's own statement", async () => {
    await h.subscribe(w.receiver.url);
    await sleepingDispatcher();
    const names: string[] = [];
    let recording = true;
    t.database.observeStatements((statement, execute) => {
      if (recording) names.push(statement.name);
      return execute();
    });
    try {
      await h.version();
      await w.receiver.waitFor(1, 45_000);
    } finally {
      recording = false;
    }
    // From the notification to the send: one statement, no separate read, fan-out or claim. On a
    // cluster, where statements run per tenant: the read, the tenant's fan-out and its claim.
    const fanOutOrClaim = /^webhook_(fan_out|lease)/;
    expect(names.filter((name) => fanOutOrClaim.test(name))).toEqual(
      (await isCitus(t.database.db))
        ? ['webhook_fan_out_pending_joined', 'webhook_fan_out_dequeue_tenant', 'webhook_lease_tenant_targets']
        : ['webhook_fan_out_hand_over'],
    );
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
