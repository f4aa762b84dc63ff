import { describe, expect, it } from 'vitest';
import { OUTBOX_CHANNEL } from './outbox.js';
import { useWebhookTest } from './testing/harness.js';

const w = useWebhookTest();
const { t, h } = w;

/** A started dispatcher whose poll is a minute away: only a notification can make it deliver soon. */
function listeningDispatcher() {
  const dispatcher = h.dispatcher({
    pollIntervalMs: 60_000,
    notifications: (onEvent) => t.database.listen(OUTBOX_CHANNEL, onEvent),
  });
  dispatcher.start();
  return dispatcher;
}

describe('idle dispatchers wake on the outbox NOTIFY', () => {
  it('delivers an event committed while the dispatcher sleeps, long before its next poll', async () => {
    const sub = await h.subscribe(w.receiver.url);
    listeningDispatcher();
    // Let the first poll find nothing and the dispatcher go to sleep.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.receiver.received).toHaveLength(0);
    const started = Date.now();
    const { version } = await h.version();
    const [got] = await w.receiver.waitFor(1, 45_000);
    // The poll is a minute away: only the notification explains a delivery well before it.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(JSON.parse(got?.body ?? '{}').payload.versionId).toBe(version.versionId);
    await expect
      .poll(async () => (await h.deliveries(sub.webhookSubscriptionId))[0]?.status, { timeout: 30_000 })
      .toBe('succeeded');
  });

  it('notifies only on commit: a rolled-back event neither wakes nor is delivered', async () => {
    let wakes = 0;
    const unlisten = await t.database.listen(OUTBOX_CHANNEL, () => {
      wakes += 1;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = wakes;
      await t.database.db
        .transaction(async (tx) => {
          await tx.execute(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
          throw new Error('roll back');
        })
        .catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(wakes).toBe(before);
      await t.database.db.execute(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
      await expect.poll(() => wakes, { timeout: 30_000 }).toBeGreaterThan(before);
    } finally {
      await unlisten();
    }
  });
});
