import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { useWebhookTest } from '../test/webhooks.js';
import { deliveryObserver } from './delivery-metrics.js';
import { parseExposition } from './exposition.js';

const w = useWebhookTest();
const { h } = w;

describe('webhook delivery metrics', () => {
  it('counts the claim and the succeeded attempt with its latency', async () => {
    const registry = new Registry();
    await h.subscribe(w.receiver.url);
    await h.version();
    await h.dispatcher({ observer: deliveryObserver(registry) }).runOnce();
    expect(w.receiver.received).toHaveLength(1);
    const samples = parseExposition(await registry.metrics());
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        ?.value;
    expect(value('webhook_claimed_attempts_total')).toBe(1);
    expect(value('webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    expect(value('webhook_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBe(1);
  });
});
