import { Counter, Histogram, type Registry } from 'prom-client';
import type { DeliveryObserver } from '../delivery/deliver.js';

/**
 * Webhook dispatcher metrics on `registry`: attempts claimed, and sent attempts by recorded
 * outcome (`succeeded`, `retrying`, `failed`, `disabled`, `lease-lost`) with the receiver's time.
 * Call once per registry (one dispatcher per process).
 */
export function deliveryObserver(registry: Registry): DeliveryObserver {
  const registers = [registry];
  const claims = new Counter({
    name: 'webhook_claimed_attempts_total',
    help: 'Webhook delivery attempts this process leased from the outbox.',
    registers,
  });
  const outcomes = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts sent, by recorded outcome.',
    labelNames: ['outcome'],
    registers,
  });
  const latency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'How long receivers took to answer a delivery attempt, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  return {
    claimed: (count) => claims.inc(count),
    delivered: (outcome, durationS) => {
      outcomes.inc({ outcome });
      latency.observe({ outcome }, durationS);
    },
  };
}
