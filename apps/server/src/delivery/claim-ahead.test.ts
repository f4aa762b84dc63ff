import { describe, expect, it } from 'vitest';
import { query } from '../test/sql.js';
import { useWebhookTest } from '../test/webhooks.js';
import type { Recorded } from './record.js';

// One slot, so that a dispatcher holds exactly one attempt claimed ahead while it sends another.
// Sends that outlast the test (the receiver holds them), and a lease with room past them: an
// attempt may wait (120 s - 30 s) / 2 = 45 s for a slot before it is given back unsent.
const LEASE_MS = 120_000;
const w = useWebhookTest({
  WEBHOOKS_CONCURRENCY: '1',
  WEBHOOKS_TENANT_CONCURRENCY: '1',
  WEBHOOKS_TIMEOUT_MS: '30000',
  WEBHOOKS_LEASE_MS: String(LEASE_MS),
});
const { t, h, time } = w;

/** A promise the test resolves when it lets the slow receiver answer. */
function gate() {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
}

/** Pending attempts of the subscription that some dispatcher holds a lease on. */
async function leased(subscriptionId: string): Promise<number> {
  const rows = await query(
    t.database.db,
    'SELECT id FROM webhook_delivery_queue WHERE subscription_id = $1 AND lease_token IS NOT NULL',
    [subscriptionId],
  );
  return rows.length;
}

describe('attempts claimed ahead of a free slot', () => {
  it('are sent one slot at a time, and a stopped dispatcher gives them back for another to send at once', async () => {
    const slow = gate();
    w.receiver.fallback = { status: 200, until: slow.closed };
    const sub = await h.subscribe(w.receiver.url);
    for (let i = 0; i < 3; i += 1) await h.version();
    const first = h.dispatcher({ pollIntervalMs: 20 });
    first.start();
    await w.receiver.waitFor(1);
    // One being sent, one claimed ahead of the next free slot.
    await expect.poll(() => leased(sub.webhookSubscriptionId), { timeout: 10_000, interval: 20 }).toBe(2);
    expect(w.receiver.received).toHaveLength(1);

    const stopping = first.stop();
    // The attempt claimed ahead is given back at once, before the one being sent is answered.
    await expect.poll(() => leased(sub.webhookSubscriptionId), { timeout: 10_000, interval: 20 }).toBe(1);
    slow.open();
    await stopping;
    expect(w.receiver.received).toHaveLength(1);

    // No lease has run out (the clock has not moved): the other two are claimable right away.
    expect(await h.dispatcher().runOnce()).toBe(2);
    expect(new Set(w.receiver.received.map((r) => r.eventId)).size).toBe(3);
    expect((await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(w.receiver.maxInFlight).toBe(1);
  });

  it('are not sent once their lease could run out during the send: another dispatcher may have them', async () => {
    const slow = gate();
    w.receiver.script({ status: 200, until: slow.closed });
    const sub = await h.subscribe(w.receiver.url);
    for (let i = 0; i < 3; i += 1) await h.version();
    const lost = gate();
    const observer = {
      claimed: () => {},
      delivered: (outcome: Recorded) => {
        if (outcome === 'lease-lost') lost.open();
      },
    };
    const first = h.dispatcher({ pollIntervalMs: 20, observer });
    first.start();
    const [held] = await w.receiver.waitFor(1);
    await expect.poll(() => leased(sub.webhookSubscriptionId), { timeout: 10_000, interval: 20 }).toBe(2);

    // The first dispatcher seems dead (its leases ran out): a second one takes every attempt over.
    time.advance(LEASE_MS + 1);
    expect(await h.dispatcher().runOnce()).toBe(3);
    // The held attempt is answered: the first dispatcher finds its lease lost, and its slot free.
    slow.open();
    await lost.closed;
    await first.stop();

    // The held attempt was sent twice (at-least-once); the one claimed ahead only by the second.
    const counts = new Map<string, number>();
    for (const r of w.receiver.received) counts.set(r.eventId, (counts.get(r.eventId) ?? 0) + 1);
    expect(w.receiver.received).toHaveLength(4);
    expect(counts.get(held?.eventId ?? '')).toBe(2);
    expect([...counts.values()].sort()).toEqual([1, 1, 2]);
    expect((await h.deliveries(sub.webhookSubscriptionId)).map((d) => d.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
  });
});
