import type { WebhookEventType } from '@customer-api/contract';
import type { Db } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import { adjustCounter } from '../lib/counters.js';
import type { IdSource } from '../lib/ids.js';
import {
  activeSubscriptions,
  deliveriesCounter,
  type EventRow,
  insertDeliveries,
  lockPendingEvents,
  markFannedOut,
  type SubscriptionRow,
} from './deliveries.repo.js';

/** True when a subscription's event type filters (`page.version.*` wildcard included) take `type`. */
export function matchesEventType(filters: readonly string[], type: WebhookEventType | string): boolean {
  return filters.some(
    (filter) => filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1))),
  );
}

function subscribed(subscription: SubscriptionRow, event: EventRow): boolean {
  return (
    subscription.tenantId === event.tenantId &&
    subscription.createdAt.getTime() <= event.createdAt.getTime() &&
    matchesEventType(subscription.eventTypes, event.type)
  );
}

/**
 * Turns up to `batch` outbox events into first delivery attempts, one per matching subscription
 * that existed when the event happened, and marks the events fanned out, all in one transaction:
 * an event is fanned out exactly once, even with several dispatchers. Returns the events handled.
 */
export async function fanOut(db: Db, deps: { clock: Clock; ids: IdSource }, batch = 100): Promise<number> {
  return db.transaction(async (tx) => {
    const events = await lockPendingEvents(tx, batch);
    if (events.length === 0) return 0;
    const subscriptions = await activeSubscriptions(tx, [...new Set(events.map((e) => e.tenantId))]);
    const now = deps.clock();
    const rows = events.flatMap((event) =>
      subscriptions
        .filter((subscription) => subscribed(subscription, event))
        .map((subscription) => ({
          id: deps.ids('whdel'),
          tenantId: event.tenantId,
          subscriptionId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          attempt: 1,
          retryStep: 0,
          status: 'pending',
          createdAt: now,
          nextAttemptAt: now,
        })),
    );
    await insertDeliveries(tx, rows);
    const perSubscription = new Map<string, { tenantId: string; count: number }>();
    for (const row of rows) {
      const entry = perSubscription.get(row.subscriptionId) ?? { tenantId: row.tenantId, count: 0 };
      entry.count += 1;
      perSubscription.set(row.subscriptionId, entry);
    }
    // A fixed order of counter upserts: two dispatchers fanning out at once cannot deadlock.
    const sorted = [...perSubscription].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [subscriptionId, { tenantId, count }] of sorted) {
      await adjustCounter(tx, tenantId, deliveriesCounter(subscriptionId), count);
    }
    await markFannedOut(
      tx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}
