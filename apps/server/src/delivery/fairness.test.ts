import { describe, expect, it } from 'vitest';
import { startReceiver } from '../test/webhook-receiver.js';
import { useWebhookTest } from '../test/webhooks.js';

// Small shares from the configuration, as `customer-api dispatch` reads them.
const w = useWebhookTest({ WEBHOOKS_CONCURRENCY: '8', WEBHOOKS_TENANT_CONCURRENCY: '3' });
const { t, h } = w;

/** A promise the test resolves when it lets the slow receiver answer. */
function gate() {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { closed, open };
}

describe('one tenant cannot slow down another', () => {
  it('a tenant’s slow receiver holds only its share; another tenant’s event is sent meanwhile', async () => {
    const slow = gate();
    w.receiver.fallback = { status: 200, until: slow.closed };
    // Tenant A: 4 subscriptions × 5 versions = 20 due attempts to one receiver that does not answer.
    for (let i = 0; i < 4; i += 1) await h.subscribe(`${w.receiver.url}?sub=${i}`);
    for (let i = 0; i < 5; i += 1) await h.version();
    const other = await startReceiver();
    try {
      const b = await t.seed.tenant();
      await h.subscribe(other.url, {}, b);
      // A send timeout longer than the test: the held attempts must stay in flight, not turn into retries.
      const webhooks = { ...t.config.webhooks, timeoutMs: 60_000 };
      h.dispatcher({ webhooks, pollIntervalMs: 20 }).start();
      const held = await w.receiver.waitFor(3);
      // Its 3 slots went round robin to 3 different subscriptions.
      expect(new Set(held.map((r) => r.path)).size).toBe(3);

      const { version } = await h.version(b);
      const [got] = await other.waitFor(1, 5000);
      expect(JSON.parse(got?.body ?? '{}').payload.versionId).toBe(version.versionId);
      // Still held, and A never got more than its share, though 5 of 8 slots stayed free.
      expect(w.receiver.received).toHaveLength(3);

      slow.open();
      await w.receiver.waitFor(20, 10_000);
      expect(w.receiver.maxInFlight).toBeLessThanOrEqual(3);
    } finally {
      slow.open();
      await other.close();
    }
  });

  it('runOnce keeps to the same share and still sends every due attempt', async () => {
    const slow = gate();
    w.receiver.fallback = { status: 200, until: slow.closed };
    await h.subscribe(w.receiver.url);
    for (let i = 0; i < 7; i += 1) await h.version();
    void w.receiver.waitFor(3).then(slow.open);
    expect(await h.dispatcher().runOnce()).toBe(7);
    expect(w.receiver.received).toHaveLength(7);
    expect(w.receiver.maxInFlight).toBeLessThanOrEqual(3);
  });
});
